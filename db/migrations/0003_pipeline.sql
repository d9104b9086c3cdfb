-- What the per-recipient pipeline needs: issuer keys, status lists, chain transactions and the notification outbox.

-- One Ed25519 key per organization; the private key is sealed with AES-GCM under ISSUER_KEY_RING.
CREATE TABLE issuer_keys (
    org_id      uuid PRIMARY KEY REFERENCES organizations (id),
    public_key  bytea       NOT NULL,
    sealed_key  text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Bitstring Status Lists, allocated per organization and mode; bits uses the W3C order (bit 0 = MSB of byte 0).
CREATE TABLE status_lists (
    id          uuid PRIMARY KEY,
    org_id      uuid        NOT NULL REFERENCES organizations (id),
    mode        text        NOT NULL,
    size        integer     NOT NULL,
    next_index  integer     NOT NULL DEFAULT 0,
    bits        bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX status_lists_open_idx ON status_lists (org_id, mode, created_at) WHERE next_index < size;

-- Anchoring transactions: the signed raw transaction is recorded before it is broadcast, so a retry re-sends the
-- same bytes and never a second transaction.
-- A row is first a nonce reservation (tx columns NULL), then the signed transaction.
CREATE TABLE chain_txs (
    anchor_key   text PRIMARY KEY,
    sender       text        NOT NULL,
    nonce        bigint      NOT NULL,
    tx_hash      text,
    raw_tx       bytea,
    digest       bytea,
    chain_id     bigint,
    block_number bigint,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (sender, nonce)
);
CREATE TABLE chain_nonces (
    sender     text PRIMARY KEY,
    next_nonce bigint NOT NULL
);

-- One row per message before it is handed to SMTP or the provider (SMTP has no idempotency of its own).
CREATE TABLE notifications (
    assertion_id uuid PRIMARY KEY REFERENCES assertions (id),
    message_id   text        NOT NULL,
    channel      text        NOT NULL,
    status       text        NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
    attempts     integer     NOT NULL DEFAULT 0,
    last_error   text,
    sent_at      timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
