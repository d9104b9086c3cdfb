-- The pipeline runs each step on chunks of recipients, and anchors the credentials of many chunks (and issuances)
-- together in one Merkle-root transaction. An assertion records the anchor transaction it was assigned to (the
-- chain_txs key) and its inclusion proof before that transaction is signed, so a retry after a crash finds the
-- same transaction instead of anchoring the credential a second time.
ALTER TABLE assertions ADD COLUMN anchor_key text;
CREATE INDEX assertions_anchor_key_idx ON assertions (anchor_key) WHERE anchor_key IS NOT NULL;
