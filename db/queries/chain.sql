-- name: GetChainTx :one
SELECT * FROM chain_txs WHERE anchor_key = $1;

-- name: ReserveChainNonce :one
-- Row-locks the sender's counter for the transaction: nonce allocation is serialised per sender across workers.
INSERT INTO chain_nonces (sender, next_nonce) VALUES (sqlc.arg(sender), sqlc.arg(floor)::bigint + 1)
ON CONFLICT (sender) DO UPDATE SET next_nonce = GREATEST(chain_nonces.next_nonce, sqlc.arg(floor)::bigint) + 1
RETURNING next_nonce - 1;

-- name: InsertChainReservation :exec
INSERT INTO chain_txs (anchor_key, sender, nonce) VALUES ($1, $2, $3);

-- name: SaveChainSigned :exec
UPDATE chain_txs SET tx_hash = $2, raw_tx = $3, digest = $4, chain_id = $5
WHERE anchor_key = $1 AND raw_tx IS NULL;

-- name: MarkChainMined :execrows
UPDATE chain_txs SET block_number = $2 WHERE anchor_key = $1 AND raw_tx IS NOT NULL;
