-- The organization's console (issue 30): people who sign in by mail link, their memberships of organizations with
-- a role, who made each API key, and an append-only audit trail of what was done in the console or by badged admin.

-- A person is an e-mail address (kept lower case, so one address is one person whatever its spelling).
CREATE TABLE people (
    id         uuid PRIMARY KEY,
    email      text        NOT NULL UNIQUE CHECK (email <> '' AND email = lower(email) AND length(email) <= 254),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- A person's role in one organization; a person may belong to several.
CREATE TABLE memberships (
    org_id     uuid        NOT NULL REFERENCES organizations (id),
    person_id  uuid        NOT NULL REFERENCES people (id),
    role       text        NOT NULL CHECK (role IN ('ORG_VIEWER', 'ORG_MANAGER', 'ORG_OWNER')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, person_id)
);
CREATE INDEX memberships_person_idx ON memberships (person_id);

-- created_by is null for keys made by badged admin (and every key made before the console); name is the console's
-- label; last_used_at is written at most once a minute per key (api/keyuse.go), so it is a minute's precision.
ALTER TABLE api_keys
    ADD COLUMN name         text NOT NULL DEFAULT '' CHECK (length(name) <= 100),
    ADD COLUMN created_by   uuid REFERENCES people (id),
    ADD COLUMN last_used_at timestamptz;

-- The audit trail: one row per console action and per key creation or revocation (console or badged admin).
-- actor is the person's address, or 'badged admin'; client_addr is the request's remote address ('' for admin).
CREATE TABLE audit_events (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id      uuid        NOT NULL REFERENCES organizations (id),
    person_id   uuid REFERENCES people (id),
    actor       text        NOT NULL,
    action      text        NOT NULL,
    target      text        NOT NULL DEFAULT '',
    detail      text        NOT NULL DEFAULT '',
    client_addr text        NOT NULL DEFAULT '',
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_org_idx ON audit_events (org_id, id DESC);

-- Append-only: no statement may change or remove a row, whoever runs it (a trigger, not a grant, so it holds for
-- the service's own role too). Dropping the trigger is a schema change, visible in a migration.
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();

-- The console's issuances list: an organization's issuances of one mode, newest first, read by keyset.
CREATE INDEX issuances_console_idx ON issuances (org_id, mode, created_at DESC, id DESC);

-- An issuance's page in the console: its recipients counted by state and error code from the index alone (one
-- pass, no heap once vacuumed), and its failures paged by error code in order.
CREATE INDEX assertions_console_counts_idx ON assertions (issuance_id, state, error_code);
CREATE INDEX assertions_console_errors_idx ON assertions (issuance_id, error_code, seq) WHERE error_code IS NOT NULL;
