-- OpenID4VCI offers, codes, tokens, nonces and wallet copies (migration 0020; package wallet).

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
-- An offer together with its assertion, for the offer URI and the token endpoint (the credential endpoint reads
-- the same columns with its access token: GetTokenOffer). The callers check every condition (withdrawn, used,
-- expired, the assertion's state) and name the one that failed.
SELECT sqlc.embed(o), now()::timestamptz AS db_now, a.state AS assertion_state, a.expired_at AS assertion_expired_at,
       a.credential_key, a.badge_id, a.issuance_id, a.program_id, a.error_code AS assertion_error_code
FROM credential_offers o JOIN assertions a ON a.id = o.assertion_id
WHERE o.id = $1;

-- name: GetTokenOffer :one
-- The credential endpoint's one read: a live access token (as GetWalletAccessToken) with its offer and the offer's
-- assertion (the columns of GetLiveOffer), so a claim makes one round trip where it made two.
SELECT sqlc.embed(t), sqlc.embed(o), now()::timestamptz AS db_now, a.state AS assertion_state, a.expired_at AS assertion_expired_at,
       a.credential_key, a.badge_id, a.issuance_id, a.program_id, a.error_code AS assertion_error_code
FROM wallet_access_tokens t
JOIN credential_offers o ON o.id = t.offer_id
JOIN assertions a ON a.id = o.assertion_id
WHERE t.token_hash = $1 AND t.expires_at > now();

-- name: CreatePreauthCode :execrows
-- A fresh code of an offer (a fetch of its URI), unless max_minted codes of the offer were minted in the last
-- window_seconds (the codes' lifetime): then nothing (0 rows) and the offer URI answers 429, so a leaked offer URI
-- grows the table by at most max_minted rows per window. Concurrent fetches may each see the count below the bound
-- and pass it by a few.
INSERT INTO preauth_codes (code_hash, offer_id, expires_at)
SELECT sqlc.arg(code_hash), sqlc.arg(offer_id), now() + sqlc.arg(ttl_seconds)::int * interval '1 second'
WHERE (SELECT count(*) FROM preauth_codes c WHERE c.offer_id = sqlc.arg(offer_id)
         AND c.created_at > now() - sqlc.arg(window_seconds)::int * interval '1 second') < sqlc.arg(max_minted)::int;

-- name: LockOfferForToken :one
-- GetLiveOffer's row with the offer locked until the token endpoint's transaction ends: its tx_code check, the
-- count of wrong tx_codes (RecordTxCodeFailure) and the suspension are decided one request at a time per offer,
-- on every API process, so no guess is judged against a count another request is about to change.
SELECT sqlc.embed(o), now()::timestamptz AS db_now, a.state AS assertion_state, a.expired_at AS assertion_expired_at,
       a.credential_key, a.badge_id, a.issuance_id, a.program_id, a.error_code AS assertion_error_code
FROM credential_offers o JOIN assertions a ON a.id = o.assertion_id
WHERE o.id = $1
FOR UPDATE OF o;

-- name: RecordTxCodeFailure :one
-- A wrong tx_code on an offer (the caller holds LockOfferForToken's lock): counted across all the offer's codes;
-- the max_failures-th suspends the offer. Returns the count and when it was suspended (NULL: not).
UPDATE credential_offers SET tx_code_failures = tx_code_failures + 1,
    suspended_at = CASE WHEN tx_code_failures + 1 >= sqlc.arg(max_failures)::int THEN coalesce(suspended_at, now()) ELSE suspended_at END
WHERE id = sqlc.arg(id)
RETURNING tx_code_failures, suspended_at;

-- name: RedeemPreauthCode :one
-- Uses a code up, once: a replayed code matches no row.
UPDATE preauth_codes SET used_at = now()
WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now()
RETURNING offer_id;

-- name: CreateWalletAccessToken :exec
INSERT INTO wallet_access_tokens (token_hash, offer_id, expires_at) VALUES ($1, $2, now() + sqlc.arg(ttl_seconds)::int * interval '1 second');

-- name: GetWalletAccessToken :one
SELECT * FROM wallet_access_tokens WHERE token_hash = $1 AND expires_at > now();

-- name: CreateWalletNonce :execrows
-- A fresh c_nonce given to client (web.ClientAddr), unless the client holds max_live unused, unexpired ones: then
-- nothing (0 rows) and the nonce endpoint answers 429. A used nonce is deleted by its claim, so a wallet that uses
-- its nonces never meets the bound. Concurrent requests of one client may each see the count below the bound and
-- pass it by a few.
INSERT INTO wallet_nonces (nonce, expires_at, client)
SELECT sqlc.arg(nonce), now() + sqlc.arg(ttl_seconds)::int * interval '1 second', sqlc.arg(client)::text
WHERE (SELECT count(*) FROM wallet_nonces n WHERE n.client = sqlc.arg(client)::text AND n.expires_at > now()) < sqlc.arg(max_live)::int;

-- name: MarkOfferUsed :one
-- The first credential request uses the offer up for every other access token; returns the token that used it.
UPDATE credential_offers SET used_at = coalesce(used_at, now()), used_by_token = coalesce(used_by_token, sqlc.arg(token_hash)::bytea)
WHERE id = sqlc.arg(id)
RETURNING used_by_token;

-- name: ClaimWalletCopy :one
-- The writes of an OID4VCI claim in one statement (one round trip inside the claim's transaction): the proof's
-- nonce is consumed (single use; a stale or made-up one deletes nothing), the offer used by this access token (the
-- first request uses it for every other token) and the copy stored, each only if the one before it succeeded. The
-- caller reads the refusal, in this order, from nonce_consumed (false: a stale or made-up nonce), used_by_token
-- (another token used the offer) and created_at (NULL: this token already received a copy of this
-- configuration), and rolls the transaction back.
WITH nonce AS (
    DELETE FROM wallet_nonces WHERE wallet_nonces.nonce = sqlc.arg(nonce) AND wallet_nonces.expires_at > now()
    RETURNING 1
), used AS (
    UPDATE credential_offers SET used_at = coalesce(used_at, now()), used_by_token = coalesce(used_by_token, sqlc.arg(token_hash)::bytea)
    WHERE credential_offers.id = sqlc.arg(offer_id) AND EXISTS (SELECT 1 FROM nonce)
    RETURNING credential_offers.used_by_token
), copy AS (
    INSERT INTO wallet_credentials (id, assertion_id, offer_id, org_id, token_hash, configuration_id, format, holder_did,
                                    credential, credential_sha256, notification_id, anchor_pending)
    SELECT sqlc.arg(id), sqlc.arg(assertion_id), sqlc.arg(offer_id), sqlc.arg(org_id), sqlc.arg(token_hash)::bytea,
           sqlc.arg(configuration_id), sqlc.arg(format), sqlc.arg(holder_did), sqlc.arg(credential),
           sqlc.arg(credential_sha256), sqlc.arg(notification_id), sqlc.arg(anchor_pending)
    FROM used WHERE used.used_by_token = sqlc.arg(token_hash)::bytea
    ON CONFLICT (token_hash, configuration_id) DO NOTHING
    RETURNING wallet_credentials.created_at
)
SELECT n.consumed AS nonce_consumed, used.used_by_token, copy.created_at
FROM (SELECT EXISTS (SELECT 1 FROM nonce) AS consumed) n
LEFT JOIN used ON true
LEFT JOIN copy ON true;

-- name: ListWalletCredentials :many
SELECT id, configuration_id, format, protocol, holder_did, notification_event, notified_at, created_at
FROM wallet_credentials WHERE assertion_id = $1 ORDER BY created_at, id;

-- name: RecordWalletNotification :execrows
-- The notification endpoint: only the holder of the access token the copy was issued under may report on it.
UPDATE wallet_credentials SET notification_event = $3, notified_at = now()
WHERE notification_id = $1 AND token_hash = $2;

-- name: PurgeWalletSecrets :one
-- Expired codes, tokens and nonces (the worker's wallet sweep, activities/walletsweep.go). Codes and tokens are
-- kept a day past their expiry, so a log line about a refused one can still be matched to its offer.
WITH c AS (DELETE FROM preauth_codes WHERE preauth_codes.expires_at < now() - interval '1 day' RETURNING 1),
     t AS (DELETE FROM wallet_access_tokens WHERE wallet_access_tokens.expires_at < now() - interval '1 day' RETURNING 1),
     n AS (DELETE FROM wallet_nonces WHERE wallet_nonces.expires_at < now() RETURNING 1)
SELECT (SELECT count(*) FROM c)::bigint AS codes, (SELECT count(*) FROM t)::bigint AS tokens, (SELECT count(*) FROM n)::bigint AS nonces;

-- name: ListSealedIssuerKeys :many
-- Every sealed issuer key, Ed25519 and RSA, for `badged admin keyring rewrap`.
SELECT 'ed25519'::text AS kind, org_id, mode, sealed_key FROM issuer_keys
UNION ALL
SELECT 'rsa'::text AS kind, org_id, mode, sealed_key FROM issuer_rsa_keys
ORDER BY 1, 2, 3;

-- name: RewrapIssuerKey :execrows
-- Compare and swap: a key changed since it was read (nothing else changes one today) is left for the next run.
UPDATE issuer_keys SET sealed_key = sqlc.arg(new_sealed)
WHERE org_id = sqlc.arg(org_id) AND mode = sqlc.arg(mode) AND sealed_key = sqlc.arg(old_sealed);

-- name: RewrapIssuerRSAKey :execrows
UPDATE issuer_rsa_keys SET sealed_key = sqlc.arg(new_sealed)
WHERE org_id = sqlc.arg(org_id) AND mode = sqlc.arg(mode) AND sealed_key = sqlc.arg(old_sealed);

-- name: RetireLapsedNotificationOffer :execrows
-- When EnsureNotificationOffers returned a lapsed offer: the assertion's notification offer whose lifetime ended
-- unused and not withdrawn gives up its place (for_notification), so the next EnsureNotificationOffers mints a fresh
-- one and the new message's link works. The old offer stays as it was, expired. A used or withdrawn offer keeps its
-- place (the recipient sees what became of it), and so does the offer of an assertion that can no longer be claimed
-- (cancelled, reissued, expired: the states here are wallet.Offerable, in SQL).
UPDATE credential_offers o SET for_notification = false
FROM assertions a
WHERE o.assertion_id = sqlc.arg(assertion_id) AND o.for_notification
  AND o.expires_at <= now() AND o.used_at IS NULL AND o.withdrawn_at IS NULL
  AND a.id = o.assertion_id AND a.state IN ('PROCESSING', 'ISSUED', 'RECEIVED')
  AND (a.expired_at IS NULL OR a.expired_at > now());

-- name: EnsureNotificationOffers :many
-- The offers the issue notifications of assertions of one organization carry, one per assertion: for each of
-- assertion_ids, its offer, created with the id at the same index of ids on the first call and returned by every
-- later one (a retried notify step links the same offers). The notify step sends one for a chunk (activities/notify.go
-- says what that saves); a resend, one with one assertion. No rows when the organization turned wallet offers off.
-- lapsed: the offer's lifetime has ended (the database's clock); the caller then tries RetireLapsedNotificationOffer.
-- The two halves never both return an assertion: the existing offers are read in the statement's snapshot, which
-- does not hold the rows it inserts.
WITH org AS (SELECT id FROM organizations WHERE organizations.id = sqlc.arg(org_id) AND wallet_offers),
want AS (SELECT unnest(sqlc.arg(assertion_ids)::uuid[]) AS assertion_id, unnest(sqlc.arg(ids)::uuid[]) AS id),
ins AS (
    INSERT INTO credential_offers (id, assertion_id, org_id, mode, expires_at, for_notification)
    SELECT want.id, want.assertion_id, org.id, sqlc.arg(mode), now() + sqlc.arg(ttl_seconds)::int * interval '1 second', true
    FROM want CROSS JOIN org
    ON CONFLICT (assertion_id) WHERE for_notification DO NOTHING
    RETURNING credential_offers.assertion_id, credential_offers.id, credential_offers.expires_at
)
SELECT ins.assertion_id, ins.id, ins.expires_at, false AS lapsed FROM ins
UNION ALL
SELECT o.assertion_id, o.id, o.expires_at, o.expires_at <= now() AS lapsed FROM credential_offers o JOIN org ON org.id = o.org_id
WHERE o.assertion_id = ANY(sqlc.arg(assertion_ids)::uuid[]) AND o.for_notification;

-- name: FirstWalletCopyAt :one
-- When the first wallet copy of an assertion was claimed (the badge page's "in a wallet since"); no row: none.
SELECT created_at FROM wallet_credentials WHERE assertion_id = $1 ORDER BY created_at LIMIT 1;

-- name: ListWalletCopiesForAdmin :many
-- `badged admin assertion copies`: every copy of an assertion with its anchor.
SELECT w.id, w.configuration_id, w.format, w.holder_did, w.created_at, w.notification_event, w.notified_at,
       w.anchor_pending, w.anchor_key, t.tx_hash AS anchor_tx_hash, t.block_number AS anchor_block
FROM wallet_credentials w LEFT JOIN chain_txs t ON t.anchor_key = w.anchor_key
WHERE w.assertion_id = $1 ORDER BY w.created_at, w.id;

-- name: LockPendingWalletCopies :many
-- Live copies waiting for an anchor transaction, oldest first, locked until their assignment commits (another
-- worker's sweep skips them).
SELECT id, credential_sha256 FROM wallet_credentials WHERE anchor_pending
ORDER BY created_at, id LIMIT sqlc.arg(max_copies)::int
FOR UPDATE SKIP LOCKED;

-- name: AssignWalletAnchor :execrows
-- Assigns pending copies to the anchor transaction stored under anchor_key, each with its Merkle inclusion proof.
UPDATE wallet_credentials w SET anchor_key = sqlc.arg(anchor_key)::text, anchor_proof = u.proof::jsonb, anchor_pending = false
FROM (SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(proofs)::text[]) AS proof) AS u
WHERE w.id = u.id AND w.anchor_pending;

-- name: ListUnminedWalletAnchors :many
-- Anchor keys of copies whose transaction is not known to be mined: a sweep that stopped between the assignment
-- and the mining (a crash, a node down) finishes them first.
SELECT DISTINCT w.anchor_key::text AS anchor_key FROM wallet_credentials w
LEFT JOIN chain_txs t ON t.anchor_key = w.anchor_key
WHERE w.anchor_key IS NOT NULL AND (t.anchor_key IS NULL OR t.block_number IS NULL)
ORDER BY 1;

-- name: ListWalletAnchorMembers :many
-- Every copy of an anchor transaction in the order of the Merkle leaves (digest bytes).
SELECT id, credential_sha256 FROM wallet_credentials WHERE anchor_key = sqlc.arg(anchor_key)::text ORDER BY credential_sha256;

-- name: GetWalletAnchorReceipt :one
-- The public anchor receipt of a wallet copy, once its transaction is mined.
SELECT w.credential_sha256, w.anchor_proof, t.tx_hash::text AS tx_hash, t.block_number::bigint AS block,
       t.chain_id::bigint AS chain_id, t.raw_tx
FROM wallet_credentials w
JOIN chain_txs t ON t.anchor_key = w.anchor_key
WHERE w.id = $1
  AND t.raw_tx IS NOT NULL AND t.tx_hash IS NOT NULL AND t.block_number IS NOT NULL AND t.chain_id IS NOT NULL;
