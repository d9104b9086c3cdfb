-- The wallet protocols' guard against guessing and flooding (wallet/guard.go, README "Into the earner's wallet").
--
-- A tx_code is 6 digits. Each fetch of an offer URI mints a fresh pre-authorized code, so counting wrong guesses
-- per code bounds nothing: they are counted per offer, across all its codes, and the 5th wrong one suspends the
-- offer for good (its owner makes a new one). The token endpoint reads and updates the count under the offer's row
-- lock, so concurrent guesses on several API processes are counted exactly.
ALTER TABLE credential_offers ADD COLUMN tx_code_failures smallint NOT NULL DEFAULT 0,
                              ADD COLUMN suspended_at timestamptz;

-- Codes minted for an offer in the last minutes are counted at each fetch of its URI (at most a few per offer at
-- a time): preauth_codes_offer_idx (offer_id) already serves that count; its creation time joins it.
DROP INDEX preauth_codes_offer_idx;
CREATE INDEX preauth_codes_offer_idx ON preauth_codes (offer_id, created_at);

-- The client a nonce of the nonce endpoint was given to (internal/web.ClientAddr: its address, an IPv6 client's
-- /64), so the live nonces of one client are bounded. The address is kept only as long as the nonce: a used nonce
-- is deleted by the claim, an expired one by the worker's wallet sweep. Nonces minted before this migration have
-- none and expire within minutes.
ALTER TABLE wallet_nonces ADD COLUMN client text;
CREATE INDEX wallet_nonces_client_idx ON wallet_nonces (client, expires_at) WHERE client IS NOT NULL;
