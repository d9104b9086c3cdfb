-- Webhooks (Standard Webhooks): endpoints per organization, an outbox of events written in the transaction of the
-- state change they describe, one delivery per (event, endpoint) plus manual redeliveries, and every attempt's
-- outcome. Deleting an endpoint deletes its deliveries and their attempts.
CREATE TABLE webhook_endpoints (
    id                   uuid PRIMARY KEY,
    org_id               uuid        NOT NULL REFERENCES organizations (id),
    url                  text        NOT NULL CHECK (url <> ''),
    -- "whsec_" + base64 of 24 random bytes. Shown once at creation; stored because every delivery is signed
    -- with it (HMAC needs the secret itself, not a hash).
    secret               text        NOT NULL CHECK (secret LIKE 'whsec_%'),
    events               text[]      NOT NULL DEFAULT '{}', -- empty: every event type
    created_at           timestamptz NOT NULL DEFAULT now(),
    disabled_at          timestamptz,
    disabled_reason      text,
    consecutive_failures int         NOT NULL DEFAULT 0, -- deliveries that ran out of attempts since the last success
    failing_since        timestamptz                     -- first failed attempt since the last success
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id, created_at);

-- The outbox. A row exists only if its organization had a subscribed, enabled endpoint when the change committed.
CREATE TABLE webhook_events (
    id            text        PRIMARY KEY CHECK (id LIKE 'evt\_%'),
    org_id        uuid        NOT NULL REFERENCES organizations (id),
    type          text        NOT NULL,
    data          jsonb       NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    dispatched_at timestamptz -- its deliveries exist and their workflows were started
);
CREATE INDEX webhook_events_undispatched ON webhook_events (created_at) WHERE dispatched_at IS NULL;
CREATE INDEX webhook_events_created ON webhook_events (created_at);

CREATE TABLE webhook_deliveries (
    id               uuid        PRIMARY KEY,
    event_id         text        NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    endpoint_id      uuid        NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    redelivery_of    uuid        REFERENCES webhook_deliveries (id) ON DELETE SET NULL, -- null: the dispatcher's delivery
    manual           boolean     NOT NULL DEFAULT false,
    status           text        NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    attempts         int         NOT NULL DEFAULT 0,
    last_status_code int,
    last_error       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    completed_at     timestamptz
);
-- One dispatcher delivery per (event, endpoint): a dispatcher that dies after starting workflows and before
-- marking the event dispatched finds the same rows (and workflow ids) on its next pass.
CREATE UNIQUE INDEX webhook_deliveries_dispatched ON webhook_deliveries (event_id, endpoint_id) WHERE NOT manual;
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);

CREATE TABLE webhook_attempts (
    delivery_id uuid        NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt     int         NOT NULL,
    status_code int,        -- null: no HTTP response (refused, timeout, blocked address)
    latency_ms  int         NOT NULL,
    error       text,
    at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (delivery_id, attempt)
);
