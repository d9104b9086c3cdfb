-- name: ListProcessingIssuances :many
-- Issuances still PROCESSING, committed before a moment, whose workflow start was never recorded, oldest first: the
-- reconciler starts the workflow of each one that has none (the process died between the commit and the start).
SELECT * FROM issuances
WHERE processing_status = 'PROCESSING' AND workflow_started_at IS NULL AND created_at < sqlc.arg(before)
ORDER BY created_at
LIMIT sqlc.arg(max_rows);

-- name: ListStartedProcessingIssuances :many
-- Issuances still PROCESSING, committed before a moment, whose workflow start was recorded, oldest first: the
-- reconciler starts the workflow again of each one Temporal no longer has (its data was lost: docs/operators.md,
-- "When Temporal loses its data").
SELECT * FROM issuances
WHERE processing_status = 'PROCESSING' AND workflow_started_at IS NOT NULL AND created_at < sqlc.arg(before)
ORDER BY created_at
LIMIT sqlc.arg(max_rows);
