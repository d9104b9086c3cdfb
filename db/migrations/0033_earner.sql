-- The earner's collection (package earner): an earner is an e-mail address signed in by mail link (0032). What
-- they choose is kept per address, never on the assertion rows the pipeline writes.

-- The collection reads every live credential of one address across organizations.
CREATE INDEX assertions_earner_idx ON assertions (recipient_email, issued_at DESC, id DESC)
    WHERE mode = 'live' AND recipient_email IS NOT NULL;

-- An earner's public profile: off until they pick a handle and switch it on.
CREATE TABLE earner_profiles (
    email      text PRIMARY KEY CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    handle     text UNIQUE CHECK (handle ~ '^[a-z0-9](?:[a-z0-9-]{1,28}[a-z0-9])$'),
    public     boolean NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now(),
    CHECK (NOT public OR handle IS NOT NULL)
);

-- Per badge: shown on the public profile (off by default), and its public page made private (others see a neutral
-- page; the credential JSON, its status and verification keep working).
CREATE TABLE earner_badge_prefs (
    assertion_id    uuid PRIMARY KEY REFERENCES assertions (id),
    email           text NOT NULL,
    show_on_profile boolean NOT NULL DEFAULT false,
    page_private    boolean NOT NULL DEFAULT false,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX earner_badge_prefs_email ON earner_badge_prefs (email) WHERE show_on_profile;

-- Earner sign-ins and collection views, per UTC day (internal/stats): no address, no client, only counts.
CREATE TABLE earner_events_daily (
    day   date   NOT NULL,
    kind  text   NOT NULL CHECK (kind IN ('signin', 'collection_view', 'profile_view')),
    count bigint NOT NULL,
    PRIMARY KEY (day, kind)
);
