-- name: CountIssuanceProcessingSteps :many
-- Operator inspect: recipients still in the pipeline per last completed step.
SELECT step, count(*) AS n FROM assertions WHERE issuance_id = $1 AND state = 'PROCESSING' GROUP BY step ORDER BY step;

-- name: ListIssuanceUnsentNotifications :many
-- Notification rows of an issuance that were not delivered, with whether an operator resend has been delivered since.
SELECT n.assertion_id, a.seq, n.channel, n.status, n.attempts, n.last_error, n.updated_at,
       EXISTS (SELECT 1 FROM notification_resends r WHERE r.assertion_id = n.assertion_id AND r.status = 'SENT')::bool AS resent
FROM notifications n JOIN assertions a ON a.id = n.assertion_id
WHERE a.issuance_id = $1 AND n.status <> 'SENT'
ORDER BY a.seq LIMIT sqlc.arg(lim)::int;

-- name: CountIssuanceUnsentNotifications :one
SELECT count(*) FROM notifications n JOIN assertions a ON a.id = n.assertion_id
WHERE a.issuance_id = $1 AND n.status <> 'SENT';

-- name: CreateNotificationResend :exec
INSERT INTO notification_resends (assertion_id, request_id, message_id) VALUES ($1, $2, $3)
ON CONFLICT (assertion_id, request_id) DO NOTHING;

-- name: LockNotificationResend :one
-- Serialises concurrent invocations of the same request for the transaction.
SELECT * FROM notification_resends WHERE assertion_id = $1 AND request_id = $2 FOR UPDATE;

-- name: MarkNotificationResendSent :exec
UPDATE notification_resends SET status = 'SENT', attempts = attempts + 1, sent_at = now(), last_error = NULL,
    updated_at = now()
WHERE assertion_id = $1 AND request_id = $2;

-- name: MarkNotificationResendFailed :exec
UPDATE notification_resends SET status = 'FAILED', attempts = attempts + 1, last_error = $3, updated_at = now()
WHERE assertion_id = $1 AND request_id = $2;

-- name: ClearNotificationError :execrows
-- A delivered resend of an issued credential whose notification had failed: the error code is cleared and a v3
-- assertion becomes RECEIVED, as if the worker's notification had succeeded.
UPDATE assertions SET error_code = NULL, state = CASE WHEN api_version = 3 THEN 'RECEIVED' ELSE state END,
    updated_at = now()
WHERE id = $1 AND state = 'ISSUED' AND error_code IS NOT NULL;

-- name: LockIssuance :one
-- Serialises re-drive commands of one issuance.
SELECT * FROM issuances WHERE id = $1 FOR UPDATE;

-- name: GetLatestRedrive :one
SELECT * FROM issuance_redrive_runs WHERE issuance_id = $1 ORDER BY n DESC LIMIT 1;

-- name: CountProcessingOf :one
SELECT count(*) FROM assertions WHERE id = ANY(sqlc.arg(ids)::uuid[]) AND state = 'PROCESSING';

-- name: ListFailedOfIssuance :many
SELECT id, seq, mode, error_code FROM assertions WHERE issuance_id = $1 AND state = 'FAILED' ORDER BY seq FOR UPDATE;

-- name: ResetForRedrive :execrows
-- Back into the pipeline at the step they had reached (the steps recorded before the failure are kept).
UPDATE assertions SET state = 'PROCESSING', error_code = NULL, updated_at = now()
WHERE id = ANY(sqlc.arg(ids)::uuid[]) AND state = 'FAILED';

-- name: CreateRedrive :one
INSERT INTO issuance_redrive_runs (issuance_id, n, workflow_id, assertion_ids, credits_debited)
VALUES ($1, $2, $3, $4, $5) RETURNING *;

-- name: ListRecipientsByIDs :many
SELECT id, seq, step, state FROM assertions
WHERE issuance_id = $1 AND id = ANY(sqlc.arg(ids)::uuid[])
ORDER BY seq;
