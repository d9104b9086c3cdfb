-- name: EnsureIssuanceLog :exec
INSERT INTO issuance_logs (org_id) VALUES ($1) ON CONFLICT (org_id) DO NOTHING;

-- name: LockIssuanceLog :one
-- The sequencer's lock: one appender per organization at a time, until its transaction ends. NO KEY UPDATE: the
-- rows that reference the log (entries, hashes, checkpoints) take KEY SHARE locks on it, which must not wait for it.
SELECT * FROM issuance_logs WHERE org_id = $1 FOR NO KEY UPDATE;

-- name: GetIssuanceLog :one
SELECT * FROM issuance_logs WHERE org_id = $1;

-- name: ListIssuanceLogPresent :many
-- Which of these credential ids the log holds already (a retried step appends nothing twice).
SELECT credential_id FROM issuance_log_entries
WHERE org_id = sqlc.arg(org_id) AND credential_id = ANY(sqlc.arg(credential_ids)::text[]);

-- name: InsertIssuanceLogEntries :exec
INSERT INTO issuance_log_entries (org_id, idx, credential_id, entry)
SELECT sqlc.arg(org_id), unnest(sqlc.arg(idxs)::bigint[]), unnest(sqlc.arg(credential_ids)::text[]),
       unnest(sqlc.arg(entries)::bytea[]);

-- name: InsertIssuanceLogHashes :exec
INSERT INTO issuance_log_hashes (org_id, hidx, hash)
SELECT sqlc.arg(org_id), unnest(sqlc.arg(hidxs)::bigint[]), unnest(sqlc.arg(hashes)::bytea[]);

-- name: ReadIssuanceLogHashes :many
SELECT hidx, hash FROM issuance_log_hashes WHERE org_id = sqlc.arg(org_id) AND hidx = ANY(sqlc.arg(hidxs)::bigint[]);

-- name: ReadIssuanceLogEntries :many
SELECT idx, entry FROM issuance_log_entries
WHERE org_id = sqlc.arg(org_id) AND idx >= sqlc.arg(lo)::bigint AND idx < sqlc.arg(hi)::bigint ORDER BY idx;

-- name: InsertIssuanceLogCheckpoint :exec
INSERT INTO issuance_log_checkpoints (org_id, tree_size, root_hash, note, anchor_key) VALUES ($1, $2, $3, $4, $5);

-- name: SetIssuanceLogHead :exec
UPDATE issuance_logs SET tree_size = $2, root_hash = $3, checkpoint = $4, updated_at = now() WHERE org_id = $1;

-- name: GetIssuanceLogEntry :one
SELECT idx, entry FROM issuance_log_entries WHERE org_id = $1 AND credential_id = $2;

-- name: GetIssuanceLogCheckpointCovering :one
-- The first checkpoint that holds entry idx: the one signed for its batch.
SELECT * FROM issuance_log_checkpoints WHERE org_id = $1 AND tree_size > sqlc.arg(idx)::bigint
ORDER BY tree_size LIMIT 1;

-- name: ListIssuanceLogAnchorRoots :many
-- The checkpoint roots an anchor transaction carries as leaves besides its credentials' digests.
SELECT root_hash FROM issuance_log_checkpoints WHERE anchor_key = sqlc.arg(anchor_key)::text ORDER BY root_hash;

-- name: ListIssuanceLogCandidates :many
-- The signed live credentials among ids, what their log entries record. The anchor step appends them.
SELECT id, org_id, credential_sha256, issued_at FROM assertions
WHERE id = ANY(sqlc.arg(ids)::uuid[]) AND mode = 'live' AND credential_sha256 IS NOT NULL;

-- name: SetIssuanceLogCheckpointAnchorProof :exec
-- The checkpoint root's inclusion proof in its anchor transaction's Merkle tree (JSON, as assertions.anchor_proof).
UPDATE issuance_log_checkpoints SET anchor_proof = sqlc.arg(anchor_proof)::jsonb
WHERE org_id = $1 AND tree_size = $2;

-- name: ListIssuanceLogBackfill :many
-- Backfill: an organization's live credentials signed and finished but not in its log (issued before the log
-- existed), oldest issue first; the credential id is the base URL's /credentials/<id>, as the issuer names it.
SELECT a.id, a.credential_sha256, a.issued_at FROM assertions a
WHERE a.org_id = sqlc.arg(org_id) AND a.mode = 'live' AND a.credential_sha256 IS NOT NULL
  AND a.state IN ('ISSUED', 'RECEIVED', 'REISSUED', 'REVOKED', 'EXPIRED')
  AND NOT EXISTS (SELECT 1 FROM issuance_log_entries e
                  WHERE e.org_id = a.org_id AND e.credential_id = sqlc.arg(base_url)::text || '/credentials/' || a.id::text)
ORDER BY a.issued_at, a.created_at, a.seq, a.id
LIMIT sqlc.arg(max_rows);

-- name: ListOrgsWithLiveCredentials :many
SELECT DISTINCT org_id FROM assertions WHERE mode = 'live' AND credential_sha256 IS NOT NULL ORDER BY org_id;

-- name: ListWalletLogCandidates :many
-- The live wallet copies among ids, what their log entries record (a copy keeps its assertion's validFrom), in claim
-- order. The wallet sweep appends them when it assigns their anchor.
SELECT w.id, w.org_id, w.credential_sha256, a.issued_at FROM wallet_credentials w JOIN assertions a ON a.id = w.assertion_id
WHERE w.id = ANY(sqlc.arg(ids)::uuid[]) AND a.mode = 'live'
ORDER BY w.created_at, w.id;
