-- name: GetChainTx :one
SELECT * FROM chain_txs WHERE anchor_key = $1;

-- name: ReserveChainNonce :one
-- Row-locks the sender's counter for the transaction: nonce allocation is serialised per sender across workers.
INSERT INTO chain_nonces (sender, next_nonce) VALUES (sqlc.arg(sender), sqlc.arg(floor)::bigint + 1)
ON CONFLICT (sender) DO UPDATE SET next_nonce = GREATEST(chain_nonces.next_nonce, sqlc.arg(floor)::bigint) + 1
RETURNING (next_nonce - 1)::bigint AS nonce;

-- name: InsertChainReservation :exec
INSERT INTO chain_txs (anchor_key, sender, nonce) VALUES ($1, $2, $3);

-- name: SaveChainSigned :exec
-- Sender and nonce are part of the condition: a key whose reservation gap repair released (and that may have
-- reserved another nonce since) must not get a transaction signed for the old nonce.
UPDATE chain_txs SET tx_hash = $2, raw_tx = $3, digest = $4, chain_id = $5
WHERE anchor_key = $1 AND raw_tx IS NULL AND sender = $6 AND nonce = $7;

-- name: MarkChainMined :execrows
UPDATE chain_txs SET block_number = $2 WHERE anchor_key = $1 AND raw_tx IS NOT NULL;

-- name: ListChainUnsettled :many
-- Ages come from the database clock, the one created_at was set by, so workers' clocks need not agree.
SELECT sqlc.embed(chain_txs), (extract(epoch FROM now() - created_at) * 1000)::bigint AS age_ms
FROM chain_txs
WHERE sender = sqlc.arg(sender) AND nonce >= sqlc.arg(lo)::bigint AND nonce < sqlc.arg(hi)::bigint
  AND block_number IS NULL
ORDER BY nonce;

-- name: ReleaseChainReservation :execrows
-- Only an unsigned reservation of exactly this nonce is released; the row lock makes a racing release wait and
-- then find nothing.
DELETE FROM chain_txs WHERE anchor_key = $1 AND sender = $2 AND nonce = $3 AND raw_tx IS NULL;

-- name: InsertChainFiller :exec
INSERT INTO chain_txs (anchor_key, sender, nonce, tx_hash, raw_tx, digest, chain_id)
VALUES ($1, $2, $3, $4, $5, $6, $7);

-- name: ListChainReservations :many
-- Like ListChainUnsettled, with the rows that have a block too: the nonces a node lacks, whatever was recorded.
-- A query of its own rather than a flag on ListChainUnsettled, which keeps to chain_txs_unmined_idx.
SELECT sqlc.embed(chain_txs), (extract(epoch FROM now() - created_at) * 1000)::bigint AS age_ms
FROM chain_txs
WHERE sender = sqlc.arg(sender) AND nonce >= sqlc.arg(lo)::bigint AND nonce < sqlc.arg(hi)::bigint
ORDER BY nonce;

-- name: ForgetChainMined :execrows
-- The node lacks these transactions: the blocks recorded for them are not on its chain.
UPDATE chain_txs SET block_number = NULL
WHERE sender = sqlc.arg(sender) AND nonce >= sqlc.arg(lo)::bigint AND nonce < sqlc.arg(hi)::bigint
  AND block_number IS NOT NULL;

-- name: MoveAnchorBlock :exec
-- An anchor transaction mined again in another block (re-broadcast after the node lost it): the credentials
-- already recorded under its key follow. Those still at SIGNED get the block from RecordAnchorMined.
UPDATE assertions SET anchor_block = sqlc.arg(block)::bigint, updated_at = now()
WHERE anchor_key = sqlc.arg(anchor_key)::text AND anchor_tx_hash IS NOT NULL
  AND anchor_block IS DISTINCT FROM sqlc.arg(block)::bigint;

-- name: GetAnchorReceipt :one
-- The public anchor receipt of an issued credential: its digest and proof, and its mined transaction. No row
-- while the credential is not issued or its transaction is not (or no longer) known to be mined.
SELECT a.credential_sha256, a.anchor_proof, t.tx_hash::text AS tx_hash, t.block_number::bigint AS block,
       t.chain_id::bigint AS chain_id, t.raw_tx
FROM assertions a
JOIN chain_txs t ON t.anchor_key = a.anchor_key
WHERE a.id = $1 AND a.mode = 'live' AND a.credential_key IS NOT NULL
  AND a.state IN ('ISSUED', 'RECEIVED', 'EXPIRED', 'REVOKED')
  AND t.raw_tx IS NOT NULL AND t.tx_hash IS NOT NULL AND t.block_number IS NOT NULL AND t.chain_id IS NOT NULL;
