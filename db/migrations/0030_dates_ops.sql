-- Serial numbers that do not count (internal/serial): an organization's n-th serial is its counter (next_serial)
-- through a permutation keyed by serial_key, so a serial no longer tells how many credentials the organization
-- issued. A random key per organization (gen_random_uuid: 122 bits from the server's strong random source, 128
-- bits stored as the AES-128 key); a volatile default gives every existing organization a key of its own. Serials
-- already issued keep their form (org prefix and decimal counter); the keyed form cannot collide with it.
ALTER TABLE organizations
    ADD COLUMN serial_key bytea NOT NULL DEFAULT decode(replace(gen_random_uuid()::text, '-', ''), 'hex')
        CHECK (octet_length(serial_key) = 16);
