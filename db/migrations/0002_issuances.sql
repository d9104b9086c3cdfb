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
    -- The idempotency scope: one issuance per (org, badge, key).
    UNIQUE (org_id, badge_id, idempotency_key)
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

CREATE FUNCTION assertion_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.mode = 'live' THEN
        UPDATE assertion_counts SET n = n - 1
        WHERE org_id = OLD.org_id AND badge_id = OLD.badge_id AND program_id = OLD.program_id AND state = OLD.state;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.mode = 'live' THEN
        INSERT INTO assertion_counts (org_id, badge_id, program_id, state, n)
        VALUES (NEW.org_id, NEW.badge_id, NEW.program_id, NEW.state, 1)
        ON CONFLICT (org_id, badge_id, program_id, state) DO UPDATE SET n = assertion_counts.n + 1;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER assertions_count_ins AFTER INSERT OR DELETE ON assertions
    FOR EACH ROW EXECUTE FUNCTION assertion_counts_apply();
CREATE TRIGGER assertions_count_upd AFTER UPDATE OF state, mode, badge_id, program_id, org_id ON assertions
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.mode IS DISTINCT FROM NEW.mode)
    EXECUTE FUNCTION assertion_counts_apply();

-- The expiry job finds issued assertions past expired_at without scanning the rest.
CREATE INDEX assertions_expiry_idx ON assertions (expired_at) WHERE state IN ('ISSUED', 'RECEIVED');
