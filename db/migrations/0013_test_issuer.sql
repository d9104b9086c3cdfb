-- Test mode gets an issuer of its own: each organization has a live key and, from its first test issuance, a test
-- key (README "Test mode"). A test credential is then signed by a key that the live issuer's controller document
-- never lists, so it cannot verify as issued by the live issuer.
ALTER TABLE issuer_keys ADD COLUMN mode text NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
ALTER TABLE issuer_keys ALTER COLUMN mode DROP DEFAULT;
ALTER TABLE issuer_keys DROP CONSTRAINT issuer_keys_pkey;
ALTER TABLE issuer_keys ADD PRIMARY KEY (org_id, mode);
