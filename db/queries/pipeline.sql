-- name: ListBatch :many
SELECT id, seq, step, state FROM assertions
WHERE issuance_id = $1 AND seq >= sqlc.arg(from_seq) AND seq < sqlc.arg(to_seq)
ORDER BY seq;

-- name: GetPipelineAssertion :one
-- Everything a pipeline step reads about one assertion, in one round trip.
SELECT sqlc.embed(a), b.name AS badge_name, b.description AS badge_description, b.criteria AS badge_criteria,
       b.skills AS badge_skills, b.image_id AS badge_image_id, o.name AS org_name
FROM assertions a
JOIN badges b ON b.id = a.badge_id
JOIN organizations o ON o.id = a.org_id
WHERE a.id = $1;

-- name: SetAssertionStep :execrows
-- Records a completed step; a re-run of an earlier step does not move the step backwards.
UPDATE assertions SET step = sqlc.arg(step), updated_at = now()
WHERE id = sqlc.arg(id) AND state = 'PROCESSING' AND step = sqlc.arg(from_step);

-- name: SetLockTimeout :exec
SELECT set_config('lock_timeout', sqlc.arg(timeout)::text, true);

-- name: LockRecipient :exec
-- Serialises the duplicate check of one recipient identity within one badge, for the transaction.
SELECT pg_advisory_xact_lock(hashtextextended(sqlc.arg(lock_key)::text, 0));

-- name: FindConflictingAssertion :one
-- Another assertion of the same badge and identity that wins over this one: an issued one not yet expired or
-- revoked, one being issued by another issuance, or a lower seq of the same issuance.
SELECT o.id FROM assertions o
WHERE o.org_id = sqlc.arg(org_id) AND o.badge_id = sqlc.arg(badge_id) AND o.mode = sqlc.arg(mode)
  AND o.id <> sqlc.arg(id)
  AND ((sqlc.narg(email)::text IS NOT NULL AND o.recipient_email = sqlc.narg(email))
    OR (sqlc.narg(email)::text IS NULL AND sqlc.narg(phone)::text IS NOT NULL AND o.recipient_phone = sqlc.narg(phone))
    OR (sqlc.narg(email)::text IS NULL AND sqlc.narg(phone)::text IS NULL AND o.recipient_sourced_id = sqlc.narg(sourced_id)))
  AND ((o.state IN ('ISSUED', 'RECEIVED') AND (o.expired_at IS NULL OR o.expired_at > now()))
    OR (o.state = 'PROCESSING' AND o.issuance_id <> sqlc.arg(issuance_id) AND o.step <> 'PENDING')
    OR (o.state = 'PROCESSING' AND o.issuance_id = sqlc.arg(issuance_id) AND o.seq < sqlc.arg(seq)))
LIMIT 1;

-- name: GetIssuerKey :one
SELECT * FROM issuer_keys WHERE org_id = $1;

-- name: CreateIssuerKey :exec
-- Of concurrent first uses exactly one key is kept; the others read it.
INSERT INTO issuer_keys (org_id, public_key, sealed_key) VALUES ($1, $2, $3) ON CONFLICT (org_id) DO NOTHING;

-- name: GetOpenStatusList :one
SELECT * FROM status_lists WHERE org_id = $1 AND mode = $2 AND next_index < size
ORDER BY created_at LIMIT 1 FOR UPDATE;

-- name: CreateStatusList :one
INSERT INTO status_lists (id, org_id, mode, size, bits) VALUES ($1, $2, $3, $4, $5) RETURNING *;

-- name: TakeStatusIndex :one
UPDATE status_lists SET next_index = next_index + 1, updated_at = now() WHERE id = $1 RETURNING next_index - 1;

-- name: SetAssertionStatusEntry :execrows
UPDATE assertions SET status_list_id = $2, status_list_index = $3, updated_at = now()
WHERE id = $1 AND status_list_id IS NULL;

-- name: GetStatusList :one
SELECT * FROM status_lists WHERE id = $1;

-- name: SetStatusBit :exec
-- bit_index is Postgres's numbering (LSB first within a byte); the caller converts from the W3C index.
UPDATE status_lists SET bits = set_bit(bits, sqlc.arg(bit_index)::int, 1), updated_at = now() WHERE id = sqlc.arg(id);

-- name: SetAssertionCredential :execrows
UPDATE assertions SET credential_json = $2, credential_sha256 = $3, step = 'SIGNED', updated_at = now()
WHERE id = $1 AND state = 'PROCESSING' AND step = 'CHECKED';

-- name: SetAssertionPublished :execrows
UPDATE assertions SET credential_key = $2, step = 'UPLOADED', updated_at = now()
WHERE id = $1 AND state = 'PROCESSING' AND step = 'BAKED';

-- name: SetAssertionAnchor :execrows
UPDATE assertions SET anchor_tx_hash = $2, anchor_block = $3, anchor_chain_id = $4, anchor_proof = $5,
    step = 'ANCHORED', updated_at = now()
WHERE id = $1 AND state = 'PROCESSING' AND step = 'SIGNED';

-- name: ListSignedInRange :many
-- The credentials of a batch waiting for their anchor, in seq order (the order of the Merkle leaves).
SELECT id, mode, credential_sha256 FROM assertions
WHERE issuance_id = $1 AND seq >= sqlc.arg(from_seq) AND seq < sqlc.arg(to_seq) AND state = 'PROCESSING' AND step = 'SIGNED'
ORDER BY seq;

-- name: SetAssertionBaked :execrows
UPDATE assertions SET baked_key = $2, baked_content_type = $3, step = 'BAKED', updated_at = now()
WHERE id = $1 AND state = 'PROCESSING' AND step = 'ANCHORED';

-- name: FinishAssertion :one
-- Writes the outcome once; a repeated call (a retried activity) changes nothing and returns the stored outcome.
UPDATE assertions SET state = sqlc.arg(state), error_code = sqlc.narg(error_code), updated_at = now()
WHERE id = sqlc.arg(id) AND state = 'PROCESSING'
RETURNING state, error_code, mode, org_id;

-- name: GetAssertionOutcome :one
SELECT state, error_code FROM assertions WHERE id = $1;

-- name: RefundCredit :exec
UPDATE organizations SET credits = credits + 1, updated_at = now() WHERE id = $1;

-- name: GetAssertionByID :one
SELECT * FROM assertions WHERE id = $1;

-- name: FailRemainingAssertions :one
-- Closes a failed run: recipients without an outcome fail with INTERNAL_SERVER_ERROR and live ones are refunded.
-- It returns how many it failed.
WITH failed AS (
    UPDATE assertions SET state = 'FAILED', error_code = 'INTERNAL_SERVER_ERROR', updated_at = now()
    WHERE issuance_id = $1 AND state = 'PROCESSING'
    RETURNING org_id, mode
), refunded AS (
    UPDATE organizations o SET credits = o.credits + f.n, updated_at = now()
    FROM (SELECT org_id, count(*) AS n FROM failed WHERE mode = 'live' GROUP BY org_id) f
    WHERE o.id = f.org_id
)
SELECT count(*) FROM failed;

-- name: CreateNotification :exec
INSERT INTO notifications (assertion_id, message_id, channel) VALUES ($1, $2, $3) ON CONFLICT (assertion_id) DO NOTHING;

-- name: GetNotification :one
SELECT * FROM notifications WHERE assertion_id = $1;

-- name: MarkNotificationSent :exec
UPDATE notifications SET status = 'SENT', attempts = attempts + 1, sent_at = now(), last_error = NULL, updated_at = now()
WHERE assertion_id = $1;

-- name: MarkNotificationFailed :exec
UPDATE notifications SET attempts = attempts + 1, last_error = $2, updated_at = now() WHERE assertion_id = $1;

-- name: ExpireAssertions :execrows
-- One bounded batch of the expiry job; the caller repeats until it returns 0.
UPDATE assertions SET state = 'EXPIRED', updated_at = now()
WHERE id IN (SELECT id FROM assertions
             WHERE state IN ('ISSUED', 'RECEIVED') AND expired_at <= now()
             ORDER BY expired_at LIMIT sqlc.arg(batch)::int
             FOR UPDATE SKIP LOCKED);
