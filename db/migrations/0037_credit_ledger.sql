-- The credit ledger (issue 30): one row per change of an organization's credits, so the console can show where
-- the balance came from. Every statement that changes organizations.credits writes its row in the same statement
-- (db/queries: CreateOrganization, GrantCredits, DebitCredits, RefundCredits, FailRemainingAssertions), so the
-- ledger and the balance move together or not at all, and balance_after is exact: the UPDATE holds the
-- organization's row lock until the row is written.
--
-- kind: opening (credits given at `badged admin org create`), grant (`badged admin credits grant`), issuance,
-- renewal, reissue (the debit of an issuance of that kind), redrive (the debit of a re-drive run), refund (live
-- recipients that failed), backfill (what this migration could not attribute; see below).
CREATE TABLE credit_ledger (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id        uuid        NOT NULL REFERENCES organizations (id),
    at            timestamptz NOT NULL DEFAULT now(),
    delta         bigint      NOT NULL CHECK (delta <> 0),
    kind          text        NOT NULL
        CHECK (kind IN ('opening', 'grant', 'issuance', 'renewal', 'reissue', 'redrive', 'refund', 'backfill')),
    issuance_id   uuid REFERENCES issuances (id),
    actor         text, -- 'badged admin', 'key <id>' (the API key); null: refunds and re-drive debits (the
                        -- re-drive's asker is in audit_events, its debit runs in every re-drive path alike)
    balance_after bigint -- null on the rows this migration reconstructed (their order in time is approximate)
);
-- The console's credits page: newest first by keyset (id).
CREATE INDEX credit_ledger_org_idx ON credit_ledger (org_id, id DESC);

-- Append-only, as audit_events: a correction is a new row, never an edit.
CREATE FUNCTION credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'credit_ledger is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER credit_ledger_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON credit_ledger
    FOR EACH STATEMENT EXECUTE FUNCTION credit_ledger_append_only();

-- Backfill from what the database still knows, oldest first (so ids follow time):
--   * opening and grants: the audit trail's org.create ('credits N') and credits.grant ('N') rows (since 0035);
--   * debits: each issuance's credits_debited at its created_at (kind from issuances.renewal and reissued_from);
--   * redrive debits: issuance_redrive_runs.credits_debited at the run's created_at;
--   * refunds: per issuance, its live FAILED recipients plus every re-driven live recipient (each was refunded
--     once before a re-drive debited it again), at the last failure's updated_at. One row per issuance: the
--     individual refund times are not kept.
-- What cannot be known (credits given before the audit trail, or changed by hand) is one 'backfill' row per
-- organization at the migration's time, so that the ledger sums to the balance; its balance_after is the balance.
INSERT INTO credit_ledger (org_id, at, delta, kind, issuance_id, actor)
SELECT org_id, at, delta, kind, issuance_id, actor FROM (
    SELECT org_id, at, substring(detail FROM '[0-9]+')::bigint AS delta, 'opening' AS kind, NULL::uuid AS issuance_id, actor
    FROM audit_events WHERE action = 'org.create' AND detail ~ '^credits [0-9]+$'
    UNION ALL
    SELECT org_id, at, detail::bigint, 'grant', NULL, actor
    FROM audit_events WHERE action = 'credits.grant' AND detail ~ '^[0-9]+$'
    UNION ALL
    SELECT i.org_id, i.created_at, -i.credits_debited::bigint,
           CASE WHEN i.renewal THEN 'renewal'
                WHEN EXISTS (SELECT 1 FROM assertions a WHERE a.issuance_id = i.id AND a.reissued_from IS NOT NULL)
                    THEN 'reissue'
                ELSE 'issuance' END, i.id, NULL
    FROM issuances i WHERE i.credits_debited > 0
    UNION ALL
    SELECT i.org_id, r.created_at, -r.credits_debited::bigint, 'redrive', i.id, NULL
    FROM issuance_redrive_runs r JOIN issuances i ON i.id = r.issuance_id WHERE r.credits_debited > 0
    UNION ALL
    SELECT i.org_id, GREATEST(f.at, r.at, i.updated_at), COALESCE(f.n, 0) + COALESCE(r.n, 0), 'refund', i.id, NULL
    FROM issuances i
    LEFT JOIN (SELECT issuance_id, count(*) AS n, max(updated_at) AS at FROM assertions
               WHERE mode = 'live' AND state = 'FAILED' GROUP BY issuance_id) f ON f.issuance_id = i.id
    LEFT JOIN (SELECT issuance_id, sum(credits_debited) AS n, max(created_at) AS at FROM issuance_redrive_runs
               GROUP BY issuance_id) r ON r.issuance_id = i.id
    WHERE i.mode = 'live' AND COALESCE(f.n, 0) + COALESCE(r.n, 0) > 0
) derived
WHERE delta <> 0
ORDER BY at, kind;

INSERT INTO credit_ledger (org_id, delta, kind, balance_after)
SELECT o.id, o.credits - COALESCE(l.sum, 0), 'backfill', o.credits
FROM organizations o LEFT JOIN (SELECT org_id, sum(delta) AS sum FROM credit_ledger GROUP BY org_id) l ON l.org_id = o.id
WHERE o.credits <> COALESCE(l.sum, 0)
ORDER BY o.created_at;

-- The console's issuance page counts an issuance's recipients by state and error code. Counting 100,000 rows of
-- assertions_console_counts_idx took 20-35 ms a page view; these counters, kept by statement-level triggers as
-- assertion_counts is (0002), answer the same from a few rows. error_code '' is none. Rows that fall to 0 stay.
CREATE TABLE issuance_outcome_counts (
    issuance_id uuid   NOT NULL,
    state       text   NOT NULL,
    error_code  text   NOT NULL,
    n           bigint NOT NULL,
    PRIMARY KEY (issuance_id, state, error_code)
);

-- Each statement adds its rows' deltas in key order, so concurrent statements lock the counters in one order.
CREATE FUNCTION issuance_outcome_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO issuance_outcome_counts (issuance_id, state, error_code, n)
    SELECT issuance_id, state, coalesce(error_code, ''), count(*) FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (issuance_id, state, error_code) DO UPDATE SET n = issuance_outcome_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION issuance_outcome_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Only rows whose state or error code changed move (most updates record pipeline steps).
    WITH changed AS (
        SELECT o.issuance_id, o.state AS old_state, coalesce(o.error_code, '') AS old_code,
               n.state AS new_state, coalesce(n.error_code, '') AS new_code
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE o.state <> n.state OR o.error_code IS DISTINCT FROM n.error_code
    ), delta AS (
        SELECT issuance_id, old_state AS state, old_code AS code, -count(*) AS d FROM changed GROUP BY 1, 2, 3
        UNION ALL
        SELECT issuance_id, new_state, new_code, count(*) FROM changed GROUP BY 1, 2, 3
    )
    INSERT INTO issuance_outcome_counts (issuance_id, state, error_code, n)
    SELECT issuance_id, state, code, sum(d) FROM delta GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (issuance_id, state, error_code) DO UPDATE SET n = issuance_outcome_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION issuance_outcome_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Assertions are not deleted in service; a hand-made DELETE must not leave the counters wrong.
    INSERT INTO issuance_outcome_counts (issuance_id, state, error_code, n)
    SELECT issuance_id, state, coalesce(error_code, ''), -count(*) FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (issuance_id, state, error_code) DO UPDATE SET n = issuance_outcome_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE TRIGGER assertions_outcome_count_insert AFTER INSERT ON assertions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issuance_outcome_counts_insert();
CREATE TRIGGER assertions_outcome_count_update AFTER UPDATE ON assertions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issuance_outcome_counts_update();
CREATE TRIGGER assertions_outcome_count_delete AFTER DELETE ON assertions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION issuance_outcome_counts_delete();

-- In the same transaction as the triggers' creation: no assertion changes between the two.
INSERT INTO issuance_outcome_counts (issuance_id, state, error_code, n)
SELECT issuance_id, state, coalesce(error_code, ''), count(*) FROM assertions GROUP BY 1, 2, 3;
