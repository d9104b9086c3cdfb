-- Operator tooling: explicit notification resends.

-- One row per (assertion, operator request): written before the message leaves, so the same request id sends at
-- most one message (a retry after a failed or lost send re-sends with the same Message-ID, like the worker does).
CREATE TABLE notification_resends (
    assertion_id uuid        NOT NULL REFERENCES assertions (id),
    request_id   text        NOT NULL CHECK (request_id <> ''),
    message_id   text        NOT NULL,
    status       text        NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
    attempts     integer     NOT NULL DEFAULT 0,
    last_error   text,
    sent_at      timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (assertion_id, request_id)
);

-- Operator re-drives of an issuance's failed recipients: run n re-drives assertion_ids in workflow
-- "<issuance workflow id>/redrive-<n>". Written in the transaction that resets the recipients, so a command
-- interrupted before the workflow start finds the run again and starts it.
CREATE TABLE issuance_redrive_runs (
    issuance_id     uuid        NOT NULL REFERENCES issuances (id),
    n               integer     NOT NULL,
    workflow_id     text        NOT NULL,
    assertion_ids   uuid[]      NOT NULL,
    credits_debited integer     NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuance_id, n)
);
