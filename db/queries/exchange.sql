-- VC-API exchanges (migration 0022; wallet/exchange.go).

-- name: CreateExchangeChallenge :execrows
-- A fresh DIDAuthentication challenge for an offer; at most 20 live ones per offer (a wallet asks once or twice),
-- so a leaked exchange URL cannot grow the table without bound.
INSERT INTO exchange_challenges (challenge_hash, offer_id, expires_at)
SELECT sqlc.arg(challenge_hash), sqlc.arg(offer_id), now() + sqlc.arg(ttl_seconds)::int * interval '1 second'
WHERE (SELECT count(*) FROM exchange_challenges c WHERE c.offer_id = sqlc.arg(offer_id) AND c.expires_at > now()) < 20;

-- name: ConsumeExchangeChallenge :execrows
-- A challenge answers one presentation; a stale, made-up or another offer's one deletes nothing.
DELETE FROM exchange_challenges WHERE challenge_hash = $1 AND offer_id = $2 AND expires_at > now();

-- name: CreateExchangeCredential :one
-- The wallet copy of an exchange: token_hash is the hash of the challenge the presentation answered (one copy per
-- challenge), and it is the offer's used_by_token, so no other exchange or OpenID4VCI token claims on the offer.
INSERT INTO wallet_credentials (id, assertion_id, offer_id, org_id, token_hash, configuration_id, format, holder_did,
                                credential, credential_sha256, notification_id, protocol, anchor_pending)
VALUES ($1, $2, $3, $4, $5, $6, 'ldp_vc', $7, $8, $9, $10, 'vcapi',
        -- a live copy waits for the worker's wallet anchor sweep, as an OpenID4VCI copy does (migration 0023)
        (SELECT o.mode = 'live' FROM credential_offers o WHERE o.id = $3))
ON CONFLICT (token_hash, configuration_id) DO NOTHING
RETURNING *;

-- name: PurgeExchangeChallenges :execrows
DELETE FROM exchange_challenges WHERE expires_at < now();
