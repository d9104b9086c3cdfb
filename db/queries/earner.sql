-- name: ListEarnerCredentials :many
-- Every live credential issued to an address, across organizations, in the states the collection may show (the
-- display filter in Go picks the section; PROCESSING and FAILED never have a credential to show).
SELECT a.id, a.org_id, a.badge_id, a.api_version, a.state, a.issued_at, a.expired_at, a.revoked_at,
       a.replaced_by, a.certificate_token, a.baked_key, a.baked_content_type, a.credential_key,
       b.name AS badge_name, b.image_id AS badge_image_id, o.name AS org_name,
       coalesce(p.show_on_profile, false)::boolean AS show_on_profile,
       coalesce(p.page_private, false)::boolean AS page_private
FROM assertions a
JOIN badges b ON b.id = a.badge_id
JOIN organizations o ON o.id = a.org_id
LEFT JOIN earner_badge_prefs p ON p.assertion_id = a.id
WHERE a.recipient_email = sqlc.arg(email)::text AND a.mode = 'live' AND a.credential_key IS NOT NULL
  AND a.state IN ('ISSUED', 'RECEIVED', 'REISSUED', 'REVOKED', 'EXPIRED')
ORDER BY a.issued_at DESC, a.id DESC
LIMIT sqlc.arg(max_rows)::int;

-- name: GetEarnerCredential :one
-- One credential of ListEarnerCredentials by id, only when it is that address's: what a download or a wallet offer
-- of the earner's needs, without reading the whole collection.
SELECT a.id, a.org_id, a.api_version, a.state, a.expired_at, a.credential_key
FROM assertions a
WHERE a.id = sqlc.arg(id) AND a.recipient_email = sqlc.arg(email)::text AND a.mode = 'live'
  AND a.credential_key IS NOT NULL AND a.state IN ('ISSUED', 'RECEIVED', 'REISSUED', 'REVOKED', 'EXPIRED');

-- name: EarnerHasCredentials :one
SELECT EXISTS (SELECT 1 FROM assertions
    WHERE recipient_email = sqlc.arg(email)::text AND mode = 'live' AND credential_key IS NOT NULL
      AND state IN ('ISSUED', 'RECEIVED', 'REISSUED', 'REVOKED', 'EXPIRED'))::boolean;

-- name: SetEarnerBadgePrefs :one
-- Sets one badge's choices, only for a live credential of that address: no row means not theirs.
INSERT INTO earner_badge_prefs (assertion_id, email, show_on_profile, page_private)
SELECT a.id, a.recipient_email, sqlc.arg(show_on_profile)::boolean, sqlc.arg(page_private)::boolean FROM assertions a
WHERE a.id = sqlc.arg(assertion_id) AND a.recipient_email = sqlc.arg(email)::text AND a.mode = 'live'
  AND a.credential_key IS NOT NULL
ON CONFLICT (assertion_id) DO UPDATE SET show_on_profile = excluded.show_on_profile,
    page_private = excluded.page_private, updated_at = now()
RETURNING assertion_id;

-- name: IsBadgePagePrivate :one
SELECT EXISTS (SELECT 1 FROM earner_badge_prefs WHERE assertion_id = $1 AND page_private)::boolean;

-- name: GetEarnerProfile :one
SELECT * FROM earner_profiles WHERE email = $1;

-- name: SetEarnerProfile :one
-- Sets the handle and whether the profile is public; a handle taken by another address is a unique violation.
INSERT INTO earner_profiles (email, handle, public) VALUES ($1, $2, $3)
ON CONFLICT (email) DO UPDATE SET handle = excluded.handle, public = excluded.public, updated_at = now()
RETURNING *;

-- name: GetPublicProfile :one
SELECT * FROM earner_profiles WHERE handle = $1 AND public;

-- name: ListProfileCredentials :many
-- The badges an earner shows on their public profile: live, shown, and still valid-looking states only.
SELECT a.id, a.state, a.api_version, a.issued_at, a.expired_at, b.name AS badge_name, b.image_id AS badge_image_id,
       o.name AS org_name, p.page_private
FROM earner_badge_prefs p
JOIN assertions a ON a.id = p.assertion_id AND a.recipient_email = p.email
JOIN badges b ON b.id = a.badge_id
JOIN organizations o ON o.id = a.org_id
WHERE p.email = $1 AND p.show_on_profile AND a.mode = 'live' AND a.credential_key IS NOT NULL
  AND a.state IN ('ISSUED', 'RECEIVED', 'REISSUED')
ORDER BY a.issued_at DESC, a.id DESC
LIMIT 1000;

-- name: AddEarnerEvents :exec
INSERT INTO earner_events_daily (day, kind, count)
SELECT unnest(sqlc.arg(days)::date[]), unnest(sqlc.arg(kinds)::text[]), unnest(sqlc.arg(counts)::bigint[])
ON CONFLICT (day, kind) DO UPDATE SET count = earner_events_daily.count + excluded.count;

-- name: EarnerWalletOffer :one
-- The earner's wallet offer of one of their credentials: a live, unused, unwithdrawn offer without tx_code that has
-- a day left, else a new one; so pressing "add to a wallet" again makes no new row.
WITH found AS (
    SELECT o.id FROM credential_offers o
    WHERE o.assertion_id = sqlc.arg(assertion_id) AND o.mode = 'live' AND o.used_at IS NULL AND o.withdrawn_at IS NULL
      AND o.tx_code_hash IS NULL AND o.expires_at > now() + interval '1 day'
    ORDER BY o.created_at DESC LIMIT 1
), made AS (
    INSERT INTO credential_offers (id, assertion_id, org_id, mode, expires_at)
    SELECT sqlc.arg(new_id), sqlc.arg(assertion_id), sqlc.arg(org_id), 'live', now() + sqlc.arg(ttl_seconds)::int * interval '1 second'
    WHERE NOT EXISTS (SELECT 1 FROM found)
    RETURNING id
)
SELECT id FROM found UNION ALL SELECT id FROM made;
