-- The organization's page and the badge's page (package catalog). Only live, published, undeleted configuration
-- shows; test-mode credentials are never counted; no recipient is ever read.

-- name: ListOrgPagePrograms :many
-- One page of the organization's visible programs, newest first (programs_org_page_idx), each row with how many
-- there are in all (one round trip for the page and its pager; a page past the last has no row).
SELECT id, name, description, url, image_id, count(*) OVER ()::bigint AS total FROM programs
WHERE org_id = sqlc.arg(org_id) AND deleted_at IS NULL AND visible_on_org_page AND publish_status = 'PUBLISHED'
ORDER BY created_at DESC, id DESC
LIMIT sqlc.arg(lim) OFFSET sqlc.arg(off);

-- name: ListProgramPageBadges :many
-- The published badges of the given programs, each with how many hold it now (live credentials issued or received
-- and not expired; assertions_holders_idx, read alone). A badge in two programs comes once for each.
SELECT pb.program_id, b.id, b.name, b.description, b.image_id, b.skills,
       (SELECT count(*) FROM assertions a
        WHERE a.badge_id = b.id AND a.mode = 'live' AND a.state IN ('ISSUED', 'RECEIVED')
          AND (a.expired_at IS NULL OR a.expired_at > now()))::bigint AS holders
FROM program_badges pb
JOIN badges b ON b.id = pb.badge_id
WHERE pb.program_id = ANY(sqlc.arg(program_ids)::uuid[]) AND b.deleted_at IS NULL AND b.publish_status = 'PUBLISHED'
ORDER BY pb.program_id, b.created_at DESC, b.id DESC;

-- name: GetAchievementPage :one
-- A published, undeleted badge with its issuer's profile and how many hold it now.
SELECT sqlc.embed(b), o.name AS org_name, o.website_url AS org_website_url, o.logo_media_id AS org_logo_media_id,
       (SELECT count(*) FROM assertions a
        WHERE a.badge_id = b.id AND a.mode = 'live' AND a.state IN ('ISSUED', 'RECEIVED')
          AND (a.expired_at IS NULL OR a.expired_at > now()))::bigint AS holders
FROM badges b
JOIN organizations o ON o.id = b.org_id
WHERE b.id = $1 AND b.deleted_at IS NULL AND b.publish_status = 'PUBLISHED';

-- name: ListBadgeVisiblePrograms :many
-- The visible programs a badge belongs to, as its page lists them.
SELECT p.id, p.name FROM program_badges pb
JOIN programs p ON p.id = pb.program_id
WHERE pb.badge_id = $1 AND p.deleted_at IS NULL AND p.visible_on_org_page AND p.publish_status = 'PUBLISHED'
ORDER BY p.created_at DESC, p.id DESC;

-- name: VisitorKey :one
-- The visitor key of a UTC day, as stored; no row before any process drew it (PutVisitorKey).
SELECT key FROM stats_visitor_keys WHERE day = $1;

-- name: PutVisitorKey :exec
-- Stores a day's visitor key unless another process stored one first; the caller then reads the stored one.
INSERT INTO stats_visitor_keys (day, key) VALUES ($1, $2) ON CONFLICT (day) DO NOTHING;

-- name: ForgetVisitors :exec
-- Deletes the keys and visits of days before since: yesterday's visitors can no longer be linked to today's.
WITH k AS (DELETE FROM stats_visitor_keys WHERE day < sqlc.arg(since)::date)
DELETE FROM stats_visits WHERE day < sqlc.arg(since)::date;

-- name: AddUniqueStats :exec
-- Adds the recorder's events of one flush (internal/stats), each counted only when its visitor was not yet counted
-- that day for that assertion and kind (stats_visits), to the daily counters. The caller sorts rows by key and sends
-- each (day, assertion, kind, visitor) once, so two processes lock rows in one order, never deadlock, and agree on
-- who counts. Days are UTC calendar dates (YYYY-MM-DD).
WITH u AS (
    SELECT unnest(sqlc.arg(assertion_ids)::uuid[]) AS assertion_id, unnest(sqlc.arg(kinds)::text[]) AS kind,
           unnest(sqlc.arg(days)::text[])::date AS day, unnest(sqlc.arg(bots)::boolean[]) AS bot,
           unnest(sqlc.arg(visitors)::bytea[]) AS visitor,
           unnest(sqlc.arg(org_ids)::uuid[]) AS org_id, unnest(sqlc.arg(modes)::text[]) AS mode,
           unnest(sqlc.arg(badge_ids)::uuid[]) AS badge_id, unnest(sqlc.arg(program_ids)::uuid[]) AS program_id,
           unnest(sqlc.arg(issuance_ids)::uuid[]) AS issuance_id
), fresh AS (
    INSERT INTO stats_visits (day, assertion_id, kind, visitor)
    SELECT day, assertion_id, kind, visitor FROM u
    ON CONFLICT DO NOTHING
    RETURNING day, assertion_id, kind, visitor
)
INSERT INTO assertion_stats_daily (assertion_id, kind, day, bot, n, org_id, mode, badge_id, program_id, issuance_id)
SELECT u.assertion_id, u.kind, u.day, u.bot, count(*), u.org_id, u.mode, u.badge_id, u.program_id, u.issuance_id
FROM fresh JOIN u USING (day, assertion_id, kind, visitor)
GROUP BY u.assertion_id, u.kind, u.day, u.bot, u.org_id, u.mode, u.badge_id, u.program_id, u.issuance_id
ORDER BY u.assertion_id, u.kind, u.day, u.bot
ON CONFLICT (assertion_id, kind, day, bot) DO UPDATE SET n = assertion_stats_daily.n + EXCLUDED.n;
