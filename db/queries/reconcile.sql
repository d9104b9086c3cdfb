-- name: ListProcessingIssuances :many
-- Issuances still PROCESSING, committed before a moment, whose workflow start was never recorded, oldest first: the
-- reconciler starts the workflow of each one that has none (the process died between the commit and the start).
SELECT * FROM issuances
WHERE processing_status = 'PROCESSING' AND workflow_started_at IS NULL AND created_at < sqlc.arg(before)
ORDER BY created_at
LIMIT sqlc.arg(max_rows);

-- name: ListStartedProcessingIssuances :many
-- Issuances still PROCESSING, committed before a moment, whose workflow start was recorded, after a keyset cursor
-- (created_at, id), oldest first: the reconciler starts the workflow again of each one Temporal no longer has (its
-- data was lost: docs/operators.md, "When Temporal loses its data"). The cursor carries over passes, so a lost one
-- behind many live ones is reached.
SELECT * FROM issuances
WHERE processing_status = 'PROCESSING' AND workflow_started_at IS NOT NULL AND created_at < sqlc.arg(before)
  AND (created_at, id) > (sqlc.arg(after_created_at)::timestamptz, sqlc.arg(after_id)::uuid)
ORDER BY created_at, id
LIMIT sqlc.arg(max_rows);
