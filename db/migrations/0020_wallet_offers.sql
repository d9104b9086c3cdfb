-- OpenID4VCI 1.0, pre-authorized code flow (api/oid4vci_*.go, README "Into the earner's wallet").
--
-- An offer is what an integrator (or the recipient's mail) hands to the recipient's wallet. It lives for weeks; each
-- fetch of its URI mints a fresh pre-authorized code that lives minutes and is redeemed once at the token endpoint
-- for an access token. The first credential issued on an offer uses it up. Secrets (codes, tokens, the tx_code) are
-- stored as SHA-256 hashes only.
CREATE TABLE credential_offers (
    id            uuid PRIMARY KEY,
    assertion_id  uuid        NOT NULL REFERENCES assertions (id),
    org_id        uuid        NOT NULL REFERENCES organizations (id),
    mode          text        NOT NULL CHECK (mode IN ('live', 'test')),
    tx_code_hash  bytea,       -- SHA-256 of the tx_code when the organization asked for one
    tx_code_len   smallint,
    expires_at    timestamptz NOT NULL,
    used_at       timestamptz,
    used_by_token bytea,       -- the access token whose credential request used the offer: only it may claim more
    withdrawn_at  timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credential_offers_assertion_idx ON credential_offers (assertion_id, created_at);

CREATE TABLE preauth_codes (
    code_hash    bytea PRIMARY KEY,
    offer_id     uuid        NOT NULL REFERENCES credential_offers (id) ON DELETE CASCADE,
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX preauth_codes_offer_idx ON preauth_codes (offer_id);
CREATE INDEX preauth_codes_expiry_idx ON preauth_codes (expires_at);

CREATE TABLE wallet_access_tokens (
    token_hash   bytea PRIMARY KEY,
    offer_id     uuid        NOT NULL REFERENCES credential_offers (id) ON DELETE CASCADE,
    expires_at   timestamptz NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wallet_access_tokens_expiry_idx ON wallet_access_tokens (expires_at);

-- c_nonce values from the nonce endpoint; a credential request deletes the one its proof names (single use).
CREATE TABLE wallet_nonces (
    nonce       text PRIMARY KEY,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX wallet_nonces_expiry_idx ON wallet_nonces (expires_at);

-- A wallet copy: a credential of the assertion bound to the holder's DID, with its own id and the assertion's status
-- list entry (revoking the assertion revokes every copy). One per access token and configuration.
CREATE TABLE wallet_credentials (
    id                 uuid PRIMARY KEY,
    assertion_id       uuid        NOT NULL REFERENCES assertions (id),
    offer_id           uuid        NOT NULL REFERENCES credential_offers (id),
    org_id             uuid        NOT NULL REFERENCES organizations (id),
    token_hash         bytea       NOT NULL,
    configuration_id   text        NOT NULL,
    format             text        NOT NULL CHECK (format IN ('ldp_vc', 'jwt_vc_json')),
    holder_did         text        NOT NULL,
    credential         bytea       NOT NULL,
    credential_sha256  bytea       NOT NULL,
    notification_id    text        NOT NULL UNIQUE,
    notification_event text CHECK (notification_event IN ('credential_accepted', 'credential_deleted', 'credential_failure')),
    notified_at        timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (token_hash, configuration_id)
);
CREATE INDEX wallet_credentials_assertion_idx ON wallet_credentials (assertion_id, created_at);
