-- Chain recovery: the anchorer records the blocks of transactions mined without their own waiter (re-broadcast
-- after a node lost them, fillers) by listing, per sender, the rows that have no block yet. Those are few among
-- every anchor ever sent, so they get an index of their own.
CREATE INDEX chain_txs_unmined_idx ON chain_txs (sender, nonce) WHERE block_number IS NULL;
