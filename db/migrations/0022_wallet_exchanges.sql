-- VC-API exchanges for the DCC Learner Credential Wallet (api/vcapi_exchange.go, README "VC-API exchange").
--
-- An offer is also an exchange. A wallet that POSTs {} to it gets a DIDAuthentication request with a fresh
-- challenge (stored here as SHA-256, single use, minutes); the presentation that answers it names the challenge.
-- The deep link's challenge is the offer's id (the link is the capability, and the offer is single use), so it
-- needs no row.
CREATE TABLE exchange_challenges (
    challenge_hash bytea PRIMARY KEY,
    offer_id       uuid        NOT NULL REFERENCES credential_offers (id) ON DELETE CASCADE,
    expires_at     timestamptz NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX exchange_challenges_offer_idx ON exchange_challenges (offer_id, expires_at);

-- Which protocol a wallet copy went out over: OpenID4VCI or a VC-API exchange.
ALTER TABLE wallet_credentials ADD COLUMN protocol text NOT NULL DEFAULT 'oid4vci' CHECK (protocol IN ('oid4vci', 'vcapi'));
