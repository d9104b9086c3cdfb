-- Mail-link sign-in (internal/signin) for the earner's collection and the console: one mechanism, two audiences
-- kept apart by the audience column. Secrets are stored as SHA-256 only (the link's token, the session id); the
-- raw values live in the mail and the cookie. The limit counters key on SHA-256 of the address or client too, so
-- none of these tables holds a client address; the link and the session name the signed-in address, which is what
-- they are for. Everything here is shared by every API process, so limits, single use and sign-out hold across
-- processes behind a balancer.
CREATE TABLE signin_links (
    token_hash bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    audience   text NOT NULL CHECK (audience IN ('earner', 'console')),
    email      text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX signin_links_expires ON signin_links (expires_at);

CREATE TABLE signin_sessions (
    id_hash      bytea PRIMARY KEY CHECK (octet_length(id_hash) = 32),
    audience     text NOT NULL CHECK (audience IN ('earner', 'console')),
    email        text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    csrf         text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL -- absolute end, whatever the activity
);
CREATE INDEX signin_sessions_owner ON signin_sessions (audience, email);
CREATE INDEX signin_sessions_expires ON signin_sessions (expires_at);

-- Fixed-window counters: one row per (address or client) key, reset when its window has passed.
CREATE TABLE signin_limits (
    key_hash     bytea PRIMARY KEY CHECK (octet_length(key_hash) = 32),
    window_start timestamptz NOT NULL,
    hits         integer NOT NULL
);
CREATE INDEX signin_limits_window ON signin_limits (window_start);
