-- Expiry reminders (issue 22). A badge's policy is a list of days before an assertion's expiry; the reminder
-- sweep (workflows/remind.go) claims each due reminder by inserting its (assertion, days) row, the exactly-once
-- guard, and sends it; a policy edit changes what is due, never what was claimed.
ALTER TABLE badges ADD COLUMN expiry_reminders integer[] NOT NULL DEFAULT '{}'
    CHECK (cardinality(expiry_reminders) <= 5 AND 1 <= ALL (expiry_reminders) AND 365 >= ALL (expiry_reminders));

CREATE TABLE expiry_reminders (
    assertion_id    uuid        NOT NULL REFERENCES assertions (id) ON DELETE CASCADE,
    days_before     integer     NOT NULL,
    org_id          uuid        NOT NULL REFERENCES organizations (id),
    expires_at      timestamptz NOT NULL, -- the assertion's expiry the reminder is about
    -- CLAIMED: due, not yet sent; SENT; FAILED: refused for good or out of attempts; CANCELLED: the assertion
    -- stopped being live (revoked, reissued, expired) before its reminder left.
    state           text        NOT NULL DEFAULT 'CLAIMED' CHECK (state IN ('CLAIMED', 'SENT', 'FAILED', 'CANCELLED')),
    channel         text        NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL, -- a CLAIMED row is (re)sent from then on
    last_error      text,
    claimed_at      timestamptz NOT NULL,
    sent_at         timestamptz,
    PRIMARY KEY (assertion_id, days_before)
);
CREATE INDEX expiry_reminders_pending ON expiry_reminders (next_attempt_at) WHERE state = 'CLAIMED';
CREATE INDEX expiry_reminders_org ON expiry_reminders (org_id, claimed_at);

-- The sweep reads, per badge with a policy, the live assertions whose expiry lies within its longest reminder.
CREATE INDEX assertions_badge_expiry_idx ON assertions (badge_id, expired_at) WHERE state IN ('ISSUED', 'RECEIVED');
CREATE INDEX badges_reminders_idx ON badges (id) WHERE expiry_reminders <> '{}' AND deleted_at IS NULL;
