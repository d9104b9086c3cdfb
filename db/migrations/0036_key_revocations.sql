-- A revoked API key stops working on every API process at once (issue 30): each process caches key rows for
-- API_KEY_CACHE_TTL, so the revocation is announced on channel api_key_revoked when its transaction commits,
-- whoever revoked it (the console, badged admin, SQL by hand), and every process forgets the key
-- (internal/apikey/revocations.go).
CREATE FUNCTION notify_api_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('api_key_revoked', NEW.id::text);
    RETURN NULL;
END
$$;

CREATE TRIGGER api_key_revoked
    AFTER UPDATE OF revoked_at ON api_keys
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION notify_api_key_revoked();
