-- name: ListProcessingIssuances :many
-- Issuances still PROCESSING that were committed before a moment, oldest first, for the reconciler: one of them
-- whose workflow never started (the process died between the commit and the start) is started again.
SELECT * FROM issuances
WHERE processing_status = 'PROCESSING' AND created_at < sqlc.arg(before)
ORDER BY created_at
LIMIT sqlc.arg(max_rows);
