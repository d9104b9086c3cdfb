-- name: StuckIssuances :one
-- Issuances still PROCESSING that were created more than older_than_seconds ago, and the age of the oldest one
-- (0 when there is none). Served by issuances_processing_idx.
SELECT count(*)::bigint AS count,
       COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS max_age_seconds
FROM issuances
WHERE processing_status = 'PROCESSING'
  AND created_at < now() - make_interval(secs => sqlc.arg(older_than_seconds)::float8);
