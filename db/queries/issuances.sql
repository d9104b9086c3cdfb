-- name: GetIssuanceByKey :one
SELECT * FROM issuances WHERE org_id = $1 AND badge_id = $2 AND mode = $3 AND idempotency_key = $4;

-- name: CreateIssuance :one
-- ON CONFLICT DO NOTHING: of concurrent identical requests exactly one inserts; the others read the winner.
INSERT INTO issuances (id, org_id, badge_id, program_id, api_version, mode, idempotency_key, request_hash, issued_at,
                       expired_at, assertion_count, credits_debited, workflow_id, body_sha256)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
ON CONFLICT (org_id, badge_id, mode, idempotency_key) DO NOTHING
RETURNING *;

-- name: GetIssuance :one
-- An issuance as the API reads it: in the key's organization and mode (api/modes.go).
SELECT * FROM issuances WHERE org_id = $1 AND id = $2 AND mode = $3;

-- name: GetIssuanceAnyOrg :one
-- For the workflow, which is handed ids it created itself.
SELECT * FROM issuances WHERE id = $1;

-- name: DebitCredits :one
-- Takes the org row lock (serialising debits) and reserves serial numbers; no row means not enough credits. The
-- organization's serial key comes along: internal/serial makes the serials of the reserved counters with it.
-- A debit writes its ledger row (kind: issuance, renewal, reissue or redrive) in the same statement; a test-mode
-- debit of 0 writes none.
WITH o AS (
    UPDATE organizations SET credits = credits - sqlc.arg(debit)::bigint,
        next_serial = next_serial + sqlc.arg(serials)::bigint, updated_at = now()
    WHERE organizations.id = sqlc.arg(id) AND credits >= sqlc.arg(debit)::bigint
    RETURNING id, credits, next_serial, serial_key
), l AS (
    INSERT INTO credit_ledger (org_id, delta, kind, issuance_id, actor, balance_after)
    SELECT o.id, -sqlc.arg(debit)::bigint, sqlc.arg(kind)::text, sqlc.narg(issuance_id)::uuid, sqlc.narg(actor)::text,
           o.credits
    FROM o WHERE sqlc.arg(debit)::bigint <> 0
)
SELECT (next_serial - sqlc.arg(serials)::bigint)::bigint AS first_serial, serial_key FROM o;

-- name: GetSerialKey :one
-- The key of an organization's serial numbers (internal/serial), for serials of counters reserved earlier (the
-- staged recipients of a large issuance).
SELECT serial_key FROM organizations WHERE id = $1;

-- name: InsertAssertions :copyfrom
INSERT INTO assertions (id, org_id, issuance_id, badge_id, program_id, mode, api_version, seq, serial_number,
                        recipient_name, recipient_email, recipient_phone, recipient_sourced_id, receive_type,
                        issued_at, expired_at, created_at, evidence)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18);

-- name: SetIssuanceStatus :one
UPDATE issuances SET processing_status = $2, failure = $3, updated_at = now()
WHERE id = $1 AND processing_status = 'PROCESSING'
RETURNING *;

-- name: MarkWorkflowStarted :exec
-- Temporal accepted the start of the issuance's workflow: replays need not start it again.
UPDATE issuances SET workflow_started_at = now() WHERE id = $1 AND workflow_started_at IS NULL;

-- name: InsertRecipientSlices :copyfrom
INSERT INTO issuance_recipient_slices (issuance_id, from_seq, to_seq, first_serial, recipients) VALUES ($1, $2, $3, $4, $5);
