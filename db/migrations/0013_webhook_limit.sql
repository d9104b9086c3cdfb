-- At most 20 webhook endpoints per organization, enforced where every writer meets it (the API, `badged admin
-- webhook create`, anything else): count-then-insert in the application let 40 concurrent creates leave 24.
-- The trigger takes a transaction-level advisory lock per organization before it counts, so concurrent inserts for
-- one organization take turns: the second counts after the first has committed (the lock is held to the end of the
-- first's transaction; under READ COMMITTED, which every writer uses, the count is a new snapshot). The error names
-- the constraint webhook_endpoints_per_org (SQLSTATE 23514), which db.IsWebhookLimit recognises.
CREATE FUNCTION webhook_endpoints_per_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('webhook-endpoints/' || NEW.org_id::text, 0));
    IF (SELECT count(*) FROM webhook_endpoints WHERE org_id = NEW.org_id AND id <> NEW.id) >= 20 THEN
        RAISE EXCEPTION 'an organization has at most 20 webhook endpoints'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'webhook_endpoints_per_org', TABLE = 'webhook_endpoints';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER webhook_endpoints_per_org BEFORE INSERT OR UPDATE OF org_id ON webhook_endpoints
    FOR EACH ROW EXECUTE FUNCTION webhook_endpoints_per_org();
