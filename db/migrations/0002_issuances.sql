-- Issuances and their assertions (one per recipient).

-- Serial numbers are per organization; the counter row also serialises credit debits of one org.
ALTER TABLE organizations ADD COLUMN next_serial bigint NOT NULL DEFAULT 1;

CREATE TABLE issuances (
    id                uuid PRIMARY KEY,
    org_id            uuid        NOT NULL REFERENCES organizations (id),
    badge_id          uuid        NOT NULL REFERENCES badges (id),
    program_id        uuid        NOT NULL REFERENCES programs (id),
    api_version       smallint    NOT NULL CHECK (api_version IN (2, 3)),
    mode              text        NOT NULL CHECK (mode IN ('live', 'test')),
    idempotency_key   text        NOT NULL,
    request_hash      bytea       NOT NULL,
    issued_at         timestamptz NOT NULL,
    expired_at        timestamptz,
    processing_status text        NOT NULL DEFAULT 'PROCESSING'
        CHECK (processing_status IN ('PROCESSING', 'COMPLETED', 'FAILED')),
    assertion_count   integer     NOT NULL CHECK (assertion_count > 0),
    credits_debited   integer     NOT NULL,
    workflow_id       text        NOT NULL,
    failure           text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    -- The idempotency scope: one issuance per (org, badge, key), apart for test and live keys.
    UNIQUE (org_id, badge_id, mode, idempotency_key)
);
CREATE INDEX issuances_processing_idx ON issuances (created_at) WHERE processing_status = 'PROCESSING';

CREATE TABLE assertions (
    id                   uuid PRIMARY KEY,
    org_id               uuid        NOT NULL REFERENCES organizations (id),
    issuance_id          uuid        NOT NULL REFERENCES issuances (id),
    badge_id             uuid        NOT NULL REFERENCES badges (id),
    program_id           uuid        NOT NULL REFERENCES programs (id),
    mode                 text        NOT NULL CHECK (mode IN ('live', 'test')),
    api_version          smallint    NOT NULL,
    seq                  integer     NOT NULL,
    serial_number        text        NOT NULL,
    recipient_name       text        NOT NULL,
    recipient_email      text,
    recipient_phone      text,
    recipient_sourced_id text,
    receive_type         text        NOT NULL CHECK (receive_type IN ('EMAIL', 'KAKAOTALK')),
    state                text        NOT NULL DEFAULT 'PROCESSING'
        CHECK (state IN ('PROCESSING', 'ISSUED', 'RECEIVED', 'FAILED', 'REISSUED', 'REVOKED', 'EXPIRED')),
    error_code           text,
    step                 text        NOT NULL DEFAULT 'PENDING',
    issued_at            timestamptz NOT NULL,
    expired_at           timestamptz,
    -- Pipeline results, each written by its step before the next step starts (idempotent retries read them).
    status_list_id       uuid,
    status_list_index    integer,
    credential_json      bytea,       -- the signed credential, kept from signing until it is published
    credential_sha256    bytea,
    credential_key       text,        -- blob key of the published credential (set by the upload step)
    anchor_tx_hash       text,
    anchor_block         bigint,
    anchor_chain_id      bigint,
    anchor_proof         jsonb,       -- Merkle inclusion proof when anchored in a batch (null: own transaction)
    baked_key            text,        -- blob key of the baked badge image
    baked_content_type   text,
    notified_at          timestamptz,
    revoked_at           timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    UNIQUE (org_id, serial_number),
    UNIQUE (issuance_id, seq)
);
-- Lists show live (production) assertions of one org, newest first; one index per filter keeps every filtered page
-- an index range scan in the default order.
CREATE INDEX assertions_list_idx ON assertions (org_id, created_at DESC, id DESC) WHERE mode = 'live';
CREATE INDEX assertions_issuance_idx ON assertions (issuance_id, seq);
CREATE INDEX assertions_badge_idx ON assertions (org_id, badge_id, created_at DESC, id DESC) WHERE mode = 'live';
CREATE INDEX assertions_program_idx ON assertions (org_id, program_id, created_at DESC, id DESC) WHERE mode = 'live';
CREATE INDEX assertions_state_idx ON assertions (org_id, state, created_at DESC, id DESC) WHERE mode = 'live';
CREATE INDEX assertions_email_idx ON assertions (org_id, recipient_email, created_at DESC, id DESC) WHERE mode = 'live';
CREATE INDEX assertions_phone_idx ON assertions (org_id, recipient_phone, created_at DESC, id DESC) WHERE mode = 'live';
CREATE INDEX assertions_sourced_idx ON assertions (org_id, recipient_sourced_id, created_at DESC, id DESC) WHERE mode = 'live';

-- Live assertion counts per (org, badge, program, state), kept by a trigger, so that the total of an unfiltered or
-- badge/program/state-filtered list is a sum of a few rows instead of a count over a million.
CREATE TABLE assertion_counts (
    org_id     uuid    NOT NULL,
    badge_id   uuid    NOT NULL,
    program_id uuid    NOT NULL,
    state      text    NOT NULL,
    n          bigint  NOT NULL,
    PRIMARY KEY (org_id, badge_id, program_id, state)
);

-- Statement-level triggers with transition tables: one upsert per (org, badge, program, state) group per
-- statement. A row-level trigger would update the same counter row once per row, which inside one statement (an
-- issuance's 10,000 inserts, a bulk state change) is quadratic in Postgres.
CREATE FUNCTION assertion_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO assertion_counts (org_id, badge_id, program_id, state, n)
    SELECT org_id, badge_id, program_id, state, count(*) FROM new_rows WHERE mode = 'live'
    GROUP BY org_id, badge_id, program_id, state
    ON CONFLICT (org_id, badge_id, program_id, state) DO UPDATE SET n = assertion_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION assertion_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Only rows whose state changed move between counters (most updates record pipeline steps).
    WITH changed AS (
        SELECT o.org_id, o.badge_id, o.program_id, o.state AS old_state, n.state AS new_state
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE o.mode = 'live' AND o.state <> n.state
    ), delta AS (
        SELECT org_id, badge_id, program_id, old_state AS state, -count(*) AS d FROM changed GROUP BY 1, 2, 3, 4
        UNION ALL
        SELECT org_id, badge_id, program_id, new_state, count(*) FROM changed GROUP BY 1, 2, 3, 4
    )
    INSERT INTO assertion_counts (org_id, badge_id, program_id, state, n)
    SELECT org_id, badge_id, program_id, state, sum(d) FROM delta GROUP BY 1, 2, 3, 4
    ON CONFLICT (org_id, badge_id, program_id, state) DO UPDATE SET n = assertion_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

-- Assertions are never deleted (issuances and audits reference them), so there is no delete trigger.
CREATE TRIGGER assertions_count_insert AFTER INSERT ON assertions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION assertion_counts_insert();
CREATE TRIGGER assertions_count_update AFTER UPDATE ON assertions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION assertion_counts_update();

-- The expiry job finds issued assertions past expired_at without scanning the rest; per org, the same rows correct
-- the counters before the job has run (a list total by state).
CREATE INDEX assertions_expiry_idx ON assertions (expired_at) WHERE state IN ('ISSUED', 'RECEIVED');
CREATE INDEX assertions_lapsed_idx ON assertions (org_id, expired_at) WHERE mode = 'live' AND state IN ('ISSUED', 'RECEIVED');
