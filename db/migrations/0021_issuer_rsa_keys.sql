-- RS256 keys of the issuers (OB 3.0 requires RS256 of JWT issuers): one per organization and mode, sealed like the
-- Ed25519 key (issuer_keys), created on first use by the first VC-JWT issued in that mode.
CREATE TABLE issuer_rsa_keys (
    org_id      uuid        NOT NULL REFERENCES organizations (id),
    mode        text        NOT NULL CHECK (mode IN ('live', 'test')),
    public_key  bytea       NOT NULL, -- PKIX DER
    sealed_key  text        NOT NULL, -- PKCS#8 DER sealed with the keyring
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, mode)
);
