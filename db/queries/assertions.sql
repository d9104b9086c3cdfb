-- name: ListAssertions :many
-- Filters are optional (NULL = no filter). The state filter reads the effective state: an ISSUED/RECEIVED
-- assertion past expired_at is EXPIRED even before the expiry job has rewritten it. hidden_state is a state the version's list
-- leaves out when no stateCode is asked for (v3 hides REISSUED; api/version.go). The pool plans each call with its values (plan_cache_mode
-- force_custom_plan), so the unused filters fold away and the matching index walks in the sort order.
SELECT sqlc.embed(a), b.name AS badge_name, b.image_id AS badge_image_id, p.name AS program_name, p.image_id AS program_image_id
FROM assertions a
JOIN badges b ON b.id = a.badge_id
JOIN programs p ON p.id = a.program_id
WHERE a.org_id = sqlc.arg(org_id) AND a.mode = 'live'
  AND (sqlc.narg(badge_id)::uuid IS NULL OR a.badge_id = sqlc.narg(badge_id))
  AND (sqlc.narg(program_id)::uuid IS NULL OR a.program_id = sqlc.narg(program_id))
  AND (sqlc.narg(issuance_id)::uuid IS NULL OR a.issuance_id = sqlc.narg(issuance_id))
  AND (sqlc.narg(state)::text IS NULL
       OR (sqlc.narg(state) NOT IN ('ISSUED', 'RECEIVED', 'EXPIRED') AND a.state = sqlc.narg(state))
       OR (sqlc.narg(state) IN ('ISSUED', 'RECEIVED') AND a.state = sqlc.narg(state)
           AND (a.expired_at IS NULL OR a.expired_at > sqlc.arg(now)::timestamptz))
       OR (sqlc.narg(state) = 'EXPIRED' AND (a.state = 'EXPIRED'
           OR (a.state IN ('ISSUED', 'RECEIVED') AND a.expired_at <= sqlc.arg(now)::timestamptz))))
  AND (sqlc.narg(email)::text IS NULL OR a.recipient_email = sqlc.narg(email))
  AND (sqlc.narg(phone)::text IS NULL OR a.recipient_phone = sqlc.narg(phone))
  AND (sqlc.narg(sourced_id)::text IS NULL OR a.recipient_sourced_id = sqlc.narg(sourced_id))
  AND (sqlc.narg(hidden_state)::text IS NULL OR a.state <> sqlc.narg(hidden_state))
  AND (sqlc.narg(start_at)::timestamptz IS NULL OR a.created_at >= sqlc.narg(start_at))
  AND (sqlc.narg(end_at)::timestamptz IS NULL OR a.created_at <= sqlc.narg(end_at))
-- The order is (created_at, id) in any directions, or id alone (id_first). With the custom plan the CASEs fold to
-- plain columns: the default and the all-ascending orders walk the (created_at DESC, id DESC) indexes forwards or
-- backwards; mixed directions take an Incremental Sort over the same index (only rows sharing one created_at are
-- sorted); id alone walks the primary key.
ORDER BY
    CASE WHEN NOT sqlc.arg(id_first)::bool AND sqlc.arg(created_desc)::bool THEN a.created_at END DESC,
    CASE WHEN NOT sqlc.arg(id_first)::bool AND NOT sqlc.arg(created_desc)::bool THEN a.created_at END,
    CASE WHEN sqlc.arg(id_desc)::bool THEN a.id END DESC,
    CASE WHEN NOT sqlc.arg(id_desc)::bool THEN a.id END
LIMIT sqlc.arg(lim) OFFSET sqlc.arg(off);

-- name: CountAssertions :one
SELECT count(*) FROM assertions a
WHERE a.org_id = sqlc.arg(org_id) AND a.mode = 'live'
  AND (sqlc.narg(badge_id)::uuid IS NULL OR a.badge_id = sqlc.narg(badge_id))
  AND (sqlc.narg(program_id)::uuid IS NULL OR a.program_id = sqlc.narg(program_id))
  AND (sqlc.narg(issuance_id)::uuid IS NULL OR a.issuance_id = sqlc.narg(issuance_id))
  AND (sqlc.narg(state)::text IS NULL
       OR (sqlc.narg(state) NOT IN ('ISSUED', 'RECEIVED', 'EXPIRED') AND a.state = sqlc.narg(state))
       OR (sqlc.narg(state) IN ('ISSUED', 'RECEIVED') AND a.state = sqlc.narg(state)
           AND (a.expired_at IS NULL OR a.expired_at > sqlc.arg(now)::timestamptz))
       OR (sqlc.narg(state) = 'EXPIRED' AND (a.state = 'EXPIRED'
           OR (a.state IN ('ISSUED', 'RECEIVED') AND a.expired_at <= sqlc.arg(now)::timestamptz))))
  AND (sqlc.narg(email)::text IS NULL OR a.recipient_email = sqlc.narg(email))
  AND (sqlc.narg(phone)::text IS NULL OR a.recipient_phone = sqlc.narg(phone))
  AND (sqlc.narg(sourced_id)::text IS NULL OR a.recipient_sourced_id = sqlc.narg(sourced_id))
  AND (sqlc.narg(hidden_state)::text IS NULL OR a.state <> sqlc.narg(hidden_state))
  AND (sqlc.narg(start_at)::timestamptz IS NULL OR a.created_at >= sqlc.narg(start_at))
  AND (sqlc.narg(end_at)::timestamptz IS NULL OR a.created_at <= sqlc.narg(end_at));

-- name: SumAssertionCounts :one
-- The total of a list filtered by nothing but badge, program and state, from the trigger-kept counters.
-- hidden_state is a state the version's list leaves out (api/version.go listHiddenState).
SELECT coalesce(sum(n), 0)::bigint FROM assertion_counts
WHERE org_id = sqlc.arg(org_id)
  AND (sqlc.narg(badge_id)::uuid IS NULL OR badge_id = sqlc.narg(badge_id))
  AND (sqlc.narg(program_id)::uuid IS NULL OR program_id = sqlc.narg(program_id))
  AND (sqlc.narg(state)::text IS NULL OR state = sqlc.narg(state))
  AND (sqlc.narg(hidden_state)::text IS NULL OR state <> sqlc.narg(hidden_state));

-- name: GetAssertion :one
-- An assertion as the API reads it: in the key's organization and mode (api/modes.go); another mode's is not found.
SELECT sqlc.embed(a), b.name AS badge_name, b.image_id AS badge_image_id, p.name AS program_name, p.image_id AS program_image_id
FROM assertions a
JOIN badges b ON b.id = a.badge_id
JOIN programs p ON p.id = a.program_id
WHERE a.org_id = sqlc.arg(org_id) AND a.id = sqlc.arg(id) AND a.mode = sqlc.arg(mode);

-- name: GetPublicAssertion :one
-- The public verification routes: an assertion by its (random) id with what the page shows.
SELECT sqlc.embed(a), b.name AS badge_name, b.image_id AS badge_image_id, o.name AS org_name
FROM assertions a
JOIN badges b ON b.id = a.badge_id
JOIN organizations o ON o.id = a.org_id
WHERE a.id = $1;

-- name: GetBadgePage :one
-- The public badge page: an assertion by its (random) id with its badge, program and issuer profile.
SELECT sqlc.embed(a), b.name AS badge_name, b.description AS badge_description, b.criteria AS badge_criteria,
       b.skills AS badge_skills, b.image_id AS badge_image_id, b.signature_image_id AS badge_signature_image_id,
       p.name AS program_name, p.url AS program_url,
       o.name AS org_name, o.website_url AS org_website_url, o.logo_media_id AS org_logo_media_id
FROM assertions a
JOIN badges b ON b.id = a.badge_id
JOIN programs p ON p.id = a.program_id
JOIN organizations o ON o.id = a.org_id
WHERE a.id = $1;

-- name: RevokeAssertion :one
-- Cancels an issued, unexpired assertion of the key's mode; no row means its state forbids it.
UPDATE assertions SET state = 'REVOKED', revoked_at = now(), revocation_reason = sqlc.narg(reason), updated_at = now()
WHERE org_id = sqlc.arg(org_id) AND id = sqlc.arg(id) AND mode = sqlc.arg(mode) AND state IN ('ISSUED', 'RECEIVED')
  AND (expired_at IS NULL OR expired_at > now())
RETURNING *;

-- name: CountLapsedAssertions :one
-- ISSUED/RECEIVED assertions past expired_at that the expiry job has not rewritten yet: the correction of the
-- counters for the effective states (few rows when the job runs every 10 minutes). Ordered by expired_at and capped,
-- so the planner walks the partial index assertions_lapsed_idx instead of trusting column statistics that count
-- already-expired rows; a result at the cap means "many", and the caller counts exactly instead.
SELECT count(*) FROM (
    SELECT 1 FROM assertions
    WHERE org_id = sqlc.arg(org_id) AND mode = 'live' AND state IN ('ISSUED', 'RECEIVED')
      AND expired_at <= sqlc.arg(now)::timestamptz
      AND (sqlc.narg(state)::text IS NULL OR state = sqlc.narg(state))
      AND (sqlc.narg(badge_id)::uuid IS NULL OR badge_id = sqlc.narg(badge_id))
      AND (sqlc.narg(program_id)::uuid IS NULL OR program_id = sqlc.narg(program_id))
    ORDER BY expired_at
    LIMIT 10000
) lapsed;

-- name: CountAssertionsByHours :one
-- The total of a list filtered by nothing but its creation range [start_at, end_before): the whole UTC hours
-- [whole_from, whole_to) from the trigger-kept hour counters, the partial hours at either end counted exactly
-- (assertions_list_idx). NULL bounds are open. The caller aligns whole_from/whole_to to hours inside the range.
SELECT ((
    SELECT coalesce(sum(c.n), 0) FROM assertion_hour_counts c
    WHERE c.org_id = sqlc.arg(org_id)
      AND (sqlc.narg(whole_from)::timestamptz IS NULL OR c.hour >= sqlc.narg(whole_from))
      AND (sqlc.narg(whole_to)::timestamptz IS NULL OR c.hour < sqlc.narg(whole_to))
)::bigint + (
    SELECT count(*) FROM assertions l
    WHERE l.org_id = sqlc.arg(org_id) AND l.mode = 'live' AND sqlc.narg(whole_from)::timestamptz IS NOT NULL
      AND l.created_at >= sqlc.narg(start_at)::timestamptz AND l.created_at < sqlc.narg(whole_from)
) + (
    SELECT count(*) FROM assertions r
    WHERE r.org_id = sqlc.arg(org_id) AND r.mode = 'live' AND sqlc.narg(whole_to)::timestamptz IS NOT NULL
      AND r.created_at >= sqlc.narg(whole_to) AND r.created_at < sqlc.narg(end_before)::timestamptz
))::bigint;
