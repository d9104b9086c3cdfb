-- What happened to each badge (internal/stats, api/stats.go, README "What happened to each badge").

-- name: AddAssertionStats :exec
-- Adds the recorder's counts of one flush. The caller sorts the rows by key, so two processes flushing the same
-- keys lock them in the same order and never deadlock. Days are UTC calendar dates (YYYY-MM-DD).
INSERT INTO assertion_stats_daily (assertion_id, kind, day, bot, n, org_id, mode, badge_id, program_id, issuance_id)
SELECT u.assertion_id, u.kind, u.day::date, u.bot, u.n, u.org_id, u.mode, u.badge_id, u.program_id, u.issuance_id
FROM (SELECT unnest(sqlc.arg(assertion_ids)::uuid[]) AS assertion_id, unnest(sqlc.arg(kinds)::text[]) AS kind,
             unnest(sqlc.arg(days)::text[]) AS day, unnest(sqlc.arg(bots)::boolean[]) AS bot, unnest(sqlc.arg(ns)::bigint[]) AS n,
             unnest(sqlc.arg(org_ids)::uuid[]) AS org_id, unnest(sqlc.arg(modes)::text[]) AS mode,
             unnest(sqlc.arg(badge_ids)::uuid[]) AS badge_id, unnest(sqlc.arg(program_ids)::uuid[]) AS program_id,
             unnest(sqlc.arg(issuance_ids)::uuid[]) AS issuance_id) AS u
ON CONFLICT (assertion_id, kind, day, bot) DO UPDATE SET n = assertion_stats_daily.n + EXCLUDED.n;

-- name: BadgeStatsByDay :many
-- The counters of one badge's assertions of one mode, by UTC day, kind and bot, days from_day..to_day inclusive.
SELECT to_char(day, 'YYYY-MM-DD')::text AS day, kind, bot, sum(n)::bigint AS n
FROM assertion_stats_daily
WHERE org_id = sqlc.arg(org_id) AND mode = sqlc.arg(mode) AND badge_id = sqlc.arg(badge_id)
  AND day BETWEEN sqlc.arg(from_day)::text::date AND sqlc.arg(to_day)::text::date
GROUP BY day, kind, bot
ORDER BY day, kind, bot;

-- name: IssuanceStatsByDay :many
-- The counters of one issuance's assertions, as BadgeStatsByDay (the caller has checked the issuance's org and mode).
SELECT to_char(day, 'YYYY-MM-DD')::text AS day, kind, bot, sum(n)::bigint AS n
FROM assertion_stats_daily
WHERE issuance_id = sqlc.arg(issuance_id)
  AND day BETWEEN sqlc.arg(from_day)::text::date AND sqlc.arg(to_day)::text::date
GROUP BY day, kind, bot
ORDER BY day, kind, bot;

-- name: BadgeOutcomesByDay :many
-- What the badge's assertions record themselves, by UTC day: wallet copies claimed (wallet_credentials) and mails
-- refused by the recipient's mail server (errorCode BOUNCED_EMAIL or REJECTED_EMAIL, dated by the notification).
SELECT to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD')::text AS day, e.kind::text AS kind, count(*)::bigint AS n
FROM assertions a
CROSS JOIN LATERAL (
    SELECT w.created_at AS at, 'wallet_claim' AS kind FROM wallet_credentials w WHERE w.assertion_id = a.id
    UNION ALL
    SELECT coalesce(nt.updated_at, a.updated_at), 'mail_bounced' FROM (SELECT 1) one
    LEFT JOIN notifications nt ON nt.assertion_id = a.id
    WHERE a.error_code IN ('BOUNCED_EMAIL', 'REJECTED_EMAIL')
) e
WHERE a.org_id = sqlc.arg(org_id) AND a.mode = sqlc.arg(mode) AND a.badge_id = sqlc.arg(badge_id)
  AND e.at >= (sqlc.arg(from_day)::text::date)::timestamp AT TIME ZONE 'UTC'
  AND e.at < ((sqlc.arg(to_day)::text::date) + 1)::timestamp AT TIME ZONE 'UTC'
GROUP BY 1, 2
ORDER BY 1, 2;

-- name: IssuanceOutcomesByDay :many
-- BadgeOutcomesByDay for one issuance's assertions.
SELECT to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD')::text AS day, e.kind::text AS kind, count(*)::bigint AS n
FROM assertions a
CROSS JOIN LATERAL (
    SELECT w.created_at AS at, 'wallet_claim' AS kind FROM wallet_credentials w WHERE w.assertion_id = a.id
    UNION ALL
    SELECT coalesce(nt.updated_at, a.updated_at), 'mail_bounced' FROM (SELECT 1) one
    LEFT JOIN notifications nt ON nt.assertion_id = a.id
    WHERE a.error_code IN ('BOUNCED_EMAIL', 'REJECTED_EMAIL')
) e
WHERE a.issuance_id = sqlc.arg(issuance_id)
  AND e.at >= (sqlc.arg(from_day)::text::date)::timestamp AT TIME ZONE 'UTC'
  AND e.at < ((sqlc.arg(to_day)::text::date) + 1)::timestamp AT TIME ZONE 'UTC'
GROUP BY 1, 2
ORDER BY 1, 2;

-- name: ProgramStatsByDay :many
-- BadgeStatsByDay for the assertions of one program (of every badge linked to it).
SELECT to_char(day, 'YYYY-MM-DD')::text AS day, kind, bot, sum(n)::bigint AS n
FROM assertion_stats_daily
WHERE org_id = sqlc.arg(org_id) AND mode = sqlc.arg(mode) AND program_id = sqlc.arg(program_id)
  AND day BETWEEN sqlc.arg(from_day)::text::date AND sqlc.arg(to_day)::text::date
GROUP BY day, kind, bot
ORDER BY day, kind, bot;

-- name: AssertionStatsByDay :many
-- BadgeStatsByDay for one assertion (the caller has checked its org and mode).
SELECT to_char(day, 'YYYY-MM-DD')::text AS day, kind, bot, sum(n)::bigint AS n
FROM assertion_stats_daily
WHERE assertion_id = sqlc.arg(assertion_id)
  AND day BETWEEN sqlc.arg(from_day)::text::date AND sqlc.arg(to_day)::text::date
GROUP BY day, kind, bot
ORDER BY day, kind, bot;

-- name: ProgramOutcomesByDay :many
-- BadgeOutcomesByDay for one program's assertions.
SELECT to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD')::text AS day, e.kind::text AS kind, count(*)::bigint AS n
FROM assertions a
CROSS JOIN LATERAL (
    SELECT w.created_at AS at, 'wallet_claim' AS kind FROM wallet_credentials w WHERE w.assertion_id = a.id
    UNION ALL
    SELECT coalesce(nt.updated_at, a.updated_at), 'mail_bounced' FROM (SELECT 1) one
    LEFT JOIN notifications nt ON nt.assertion_id = a.id
    WHERE a.error_code IN ('BOUNCED_EMAIL', 'REJECTED_EMAIL')
) e
WHERE a.org_id = sqlc.arg(org_id) AND a.mode = sqlc.arg(mode) AND a.program_id = sqlc.arg(program_id)
  AND e.at >= (sqlc.arg(from_day)::text::date)::timestamp AT TIME ZONE 'UTC'
  AND e.at < ((sqlc.arg(to_day)::text::date) + 1)::timestamp AT TIME ZONE 'UTC'
GROUP BY 1, 2
ORDER BY 1, 2;

-- name: AssertionOutcomesByDay :many
-- BadgeOutcomesByDay for one assertion.
SELECT to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD')::text AS day, e.kind::text AS kind, count(*)::bigint AS n
FROM assertions a
CROSS JOIN LATERAL (
    SELECT w.created_at AS at, 'wallet_claim' AS kind FROM wallet_credentials w WHERE w.assertion_id = a.id
    UNION ALL
    SELECT coalesce(nt.updated_at, a.updated_at), 'mail_bounced' FROM (SELECT 1) one
    LEFT JOIN notifications nt ON nt.assertion_id = a.id
    WHERE a.error_code IN ('BOUNCED_EMAIL', 'REJECTED_EMAIL')
) e
WHERE a.id = sqlc.arg(assertion_id)
  AND e.at >= (sqlc.arg(from_day)::text::date)::timestamp AT TIME ZONE 'UTC'
  AND e.at < ((sqlc.arg(to_day)::text::date) + 1)::timestamp AT TIME ZONE 'UTC'
GROUP BY 1, 2
ORDER BY 1, 2;
