-- OpenID4VCI offers, codes, tokens, nonces and wallet copies (migration 0020; api/oid4vci_*.go).

-- name: GetIssuerRSAKey :one
SELECT * FROM issuer_rsa_keys WHERE org_id = $1 AND mode = $2;

-- name: CreateIssuerRSAKey :exec
-- Of concurrent first uses exactly one key is kept; the others read it.
INSERT INTO issuer_rsa_keys (org_id, mode, public_key, sealed_key) VALUES ($1, $2, $3, $4) ON CONFLICT (org_id, mode) DO NOTHING;

-- name: CreateCredentialOffer :one
INSERT INTO credential_offers (id, assertion_id, org_id, mode, tx_code_hash, tx_code_len, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, now() + sqlc.arg(ttl_seconds)::int * interval '1 second')
RETURNING *;

-- name: WithdrawCredentialOffer :one
UPDATE credential_offers SET withdrawn_at = coalesce(withdrawn_at, now())
WHERE id = $1 AND assertion_id = $2 AND org_id = $3 AND mode = $4
RETURNING *;

-- name: GetLiveOffer :one
-- An offer together with its assertion, for the offer URI, the token and the credential endpoints. The callers
-- check every condition (withdrawn, used, expired, the assertion's state) and name the one that failed.
SELECT sqlc.embed(o), now()::timestamptz AS db_now, a.state AS assertion_state, a.expired_at AS assertion_expired_at,
       a.credential_key, a.badge_id, a.issuance_id, a.program_id, a.error_code AS assertion_error_code
FROM credential_offers o JOIN assertions a ON a.id = o.assertion_id
WHERE o.id = $1;

-- name: CreatePreauthCode :exec
INSERT INTO preauth_codes (code_hash, offer_id, expires_at) VALUES ($1, $2, now() + sqlc.arg(ttl_seconds)::int * interval '1 second');

-- name: RedeemPreauthCode :one
-- Uses a code up, once: a replayed code matches no row.
UPDATE preauth_codes SET used_at = now()
WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now()
RETURNING offer_id;

-- name: CreateWalletAccessToken :exec
INSERT INTO wallet_access_tokens (token_hash, offer_id, expires_at) VALUES ($1, $2, now() + sqlc.arg(ttl_seconds)::int * interval '1 second');

-- name: GetWalletAccessToken :one
SELECT * FROM wallet_access_tokens WHERE token_hash = $1 AND expires_at > now();

-- name: CreateWalletNonce :exec
INSERT INTO wallet_nonces (nonce, expires_at) VALUES ($1, now() + sqlc.arg(ttl_seconds)::int * interval '1 second');

-- name: ConsumeWalletNonce :execrows
-- A nonce serves one credential request; a stale or made-up one deletes nothing.
DELETE FROM wallet_nonces WHERE nonce = $1 AND expires_at > now();

-- name: MarkOfferUsed :one
-- The first credential request uses the offer up for every other access token; returns the token that used it.
UPDATE credential_offers SET used_at = coalesce(used_at, now()), used_by_token = coalesce(used_by_token, sqlc.arg(token_hash)::bytea)
WHERE id = sqlc.arg(id)
RETURNING used_by_token;

-- name: CreateWalletCredential :one
INSERT INTO wallet_credentials (id, assertion_id, offer_id, org_id, token_hash, configuration_id, format, holder_did,
                                credential, credential_sha256, notification_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (token_hash, configuration_id) DO NOTHING
RETURNING *;

-- name: ListWalletCredentials :many
SELECT id, configuration_id, format, protocol, holder_did, notification_event, notified_at, created_at
FROM wallet_credentials WHERE assertion_id = $1 ORDER BY created_at, id;

-- name: RecordWalletNotification :execrows
-- The notification endpoint: only the holder of the access token the copy was issued under may report on it.
UPDATE wallet_credentials SET notification_event = $3, notified_at = now()
WHERE notification_id = $1 AND token_hash = $2;

-- name: PurgeWalletSecrets :one
-- Expired codes, tokens and nonces (the expiry schedule's sweep).
WITH c AS (DELETE FROM preauth_codes WHERE preauth_codes.expires_at < now() - interval '1 day' RETURNING 1),
     t AS (DELETE FROM wallet_access_tokens WHERE wallet_access_tokens.expires_at < now() - interval '1 day' RETURNING 1),
     n AS (DELETE FROM wallet_nonces WHERE wallet_nonces.expires_at < now() RETURNING 1)
SELECT (SELECT count(*) FROM c) + (SELECT count(*) FROM t) + (SELECT count(*) FROM n);
