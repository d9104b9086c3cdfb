-- Test credentials signed before 0013_test_issuer.sql carry the live issuer and its key: nothing tells a verifier they
-- are tests. They are withdrawn: their status bits are set (so every verifier reads them as revoked) and the issued
-- ones turn REVOKED with the reason below (so the page and the API say so). Test assertions are never listed and
-- their status lists hold no live entry, so no live data changes.
DO $$
DECLARE
    e record;
BEGIN
    FOR e IN SELECT status_list_id AS list, status_list_index AS i FROM assertions
             WHERE mode = 'test' AND status_list_id IS NOT NULL AND credential_sha256 IS NOT NULL
    LOOP
        -- W3C numbers bits from the most significant bit of byte 0; set_bit from the least (issuer.Revoke).
        UPDATE status_lists SET bits = set_bit(bits, e.i / 8 * 8 + (7 - e.i % 8), 1), updated_at = now()
        WHERE id = e.list;
    END LOOP;
END
$$;
UPDATE assertions SET state = 'REVOKED', revoked_at = now(), updated_at = now(),
    revocation_reason = 'A test-mode credential issued before test mode had its own issuer: withdrawn, it was never a real badge.'
WHERE mode = 'test' AND state IN ('ISSUED', 'RECEIVED') AND credential_sha256 IS NOT NULL;
