-- name: CreateSigninLink :exec
INSERT INTO signin_links (token_hash, audience, email, expires_at) VALUES ($1, $2, $3, $4);

-- name: UseSigninLink :one
-- Marks the link used and returns it, in one statement: of two processes redeeming the same link at once, one
-- gets the row and the other none (single use across processes).
UPDATE signin_links SET used_at = sqlc.arg(now)::timestamptz
WHERE token_hash = $1 AND audience = $2 AND used_at IS NULL AND expires_at > sqlc.arg(now)::timestamptz
RETURNING email;

-- name: CountSigninHit :one
-- Counts one hit against key in a fixed window starting at the first hit; a window older than window_seconds
-- starts over. Returns the hits in the current window, this one included.
INSERT INTO signin_limits AS l (key_hash, window_start, hits) VALUES ($1, sqlc.arg(now)::timestamptz, 1)
ON CONFLICT (key_hash) DO UPDATE SET
    hits = CASE WHEN l.window_start <= sqlc.arg(now)::timestamptz - make_interval(secs => sqlc.arg(window_seconds)::float8)
        THEN 1 ELSE l.hits + 1 END,
    window_start = CASE WHEN l.window_start <= sqlc.arg(now)::timestamptz - make_interval(secs => sqlc.arg(window_seconds)::float8)
        THEN sqlc.arg(now)::timestamptz ELSE l.window_start END
RETURNING hits;

-- name: CreateSigninSession :exec
INSERT INTO signin_sessions (id_hash, audience, email, csrf, created_at, last_seen_at, expires_at)
VALUES ($1, $2, $3, $4, sqlc.arg(now)::timestamptz, sqlc.arg(now)::timestamptz, $5);

-- name: TouchSigninSession :one
-- Returns the live session and records the activity: a session idle for idle_seconds, or past its absolute end,
-- is not returned (and is deleted by the sweep).
UPDATE signin_sessions SET last_seen_at = sqlc.arg(now)::timestamptz
WHERE id_hash = $1 AND audience = $2 AND expires_at > sqlc.arg(now)::timestamptz
  AND last_seen_at > sqlc.arg(now)::timestamptz - make_interval(secs => sqlc.arg(idle_seconds)::float8)
RETURNING email, csrf, created_at;

-- name: DeleteSigninSession :exec
DELETE FROM signin_sessions WHERE id_hash = $1 AND audience = $2;

-- name: DeleteSigninSessionsOf :execrows
DELETE FROM signin_sessions WHERE audience = $1 AND email = $2;

-- name: SweepSignin :exec
-- Removes what can no longer be used: expired links, ended sessions, windows long past.
WITH l AS (DELETE FROM signin_links WHERE signin_links.expires_at < sqlc.arg(now)::timestamptz - interval '1 day'),
     s AS (DELETE FROM signin_sessions WHERE signin_sessions.expires_at < sqlc.arg(now)::timestamptz
           OR signin_sessions.last_seen_at < sqlc.arg(now)::timestamptz - make_interval(secs => sqlc.arg(idle_seconds)::float8))
DELETE FROM signin_limits WHERE window_start < sqlc.arg(now)::timestamptz - interval '1 day';
