-- name: CreateAPIKey :one
INSERT INTO api_keys (id, org_id, key_hash, role, mode) VALUES ($1, $2, $3, $4, $5) RETURNING *;

-- name: GetAPIKey :one
-- The key id travels inside the key; the caller compares key_hash in constant time.
SELECT k.id, k.org_id, k.key_hash, k.role, k.mode, k.revoked_at, o.name AS org_name
FROM api_keys k JOIN organizations o ON o.id = k.org_id
WHERE k.id = $1;

-- name: RevokeAPIKey :one
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING *;
