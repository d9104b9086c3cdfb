-- What happened to each badge (internal/stats, api/stats.go, README "What happened to each badge").

-- name: StatsByDay :many
-- The counters of the assertions of one subject, by UTC day, kind and bot, days from_day..to_day inclusive. The
-- subject is one of: a badge or a program (with org_id and mode), an issuance or an assertion (whose org and mode
-- the caller has checked); the other filters are NULL. The pool plans each call with its values (plan_cache_mode
-- force_custom_plan), so the NULL filters fold away and each subject walks its own index, the plans of four
-- separate queries (EXPLAIN on 400,000 seeded rows: assertion_stats_badge_idx, _program_idx, _issuance_idx, the
-- primary key).
SELECT to_char(day, 'YYYY-MM-DD')::text AS day, kind, bot, sum(n)::bigint AS n
FROM assertion_stats_daily
WHERE (sqlc.narg(org_id)::uuid IS NULL OR org_id = sqlc.narg(org_id))
  AND (sqlc.narg(mode)::text IS NULL OR mode = sqlc.narg(mode))
  AND (sqlc.narg(badge_id)::uuid IS NULL OR badge_id = sqlc.narg(badge_id))
  AND (sqlc.narg(program_id)::uuid IS NULL OR program_id = sqlc.narg(program_id))
  AND (sqlc.narg(issuance_id)::uuid IS NULL OR issuance_id = sqlc.narg(issuance_id))
  AND (sqlc.narg(assertion_id)::uuid IS NULL OR assertion_id = sqlc.narg(assertion_id))
  AND day BETWEEN sqlc.arg(from_day)::text::date AND sqlc.arg(to_day)::text::date
GROUP BY day, kind, bot
ORDER BY day, kind, bot;

-- name: OutcomesByDay :many
-- What the subject's assertions record themselves, by UTC day: wallet copies claimed (wallet_credentials) and mails
-- refused by the recipient's mail server (errorCode BOUNCED_EMAIL or REJECTED_EMAIL, dated by the notification).
-- The subject and its filters as StatsByDay (the same plans as separate queries: assertions_badge_idx,
-- _program_idx, _issuance_idx, the primary key).
SELECT to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD')::text AS day, e.kind::text AS kind, count(*)::bigint AS n
FROM assertions a
CROSS JOIN LATERAL (
    SELECT w.created_at AS at, 'wallet_claim' AS kind FROM wallet_credentials w WHERE w.assertion_id = a.id
    UNION ALL
    SELECT coalesce(nt.updated_at, a.updated_at), 'mail_bounced' FROM (SELECT 1) one
    LEFT JOIN notifications nt ON nt.assertion_id = a.id
    WHERE a.error_code IN ('BOUNCED_EMAIL', 'REJECTED_EMAIL')
) e
WHERE (sqlc.narg(org_id)::uuid IS NULL OR a.org_id = sqlc.narg(org_id))
  AND (sqlc.narg(mode)::text IS NULL OR a.mode = sqlc.narg(mode))
  AND (sqlc.narg(badge_id)::uuid IS NULL OR a.badge_id = sqlc.narg(badge_id))
  AND (sqlc.narg(program_id)::uuid IS NULL OR a.program_id = sqlc.narg(program_id))
  AND (sqlc.narg(issuance_id)::uuid IS NULL OR a.issuance_id = sqlc.narg(issuance_id))
  AND (sqlc.narg(assertion_id)::uuid IS NULL OR a.id = sqlc.narg(assertion_id))
  AND e.at >= (sqlc.arg(from_day)::text::date)::timestamp AT TIME ZONE 'UTC'
  AND e.at < ((sqlc.arg(to_day)::text::date) + 1)::timestamp AT TIME ZONE 'UTC'
GROUP BY 1, 2
ORDER BY 1, 2;
