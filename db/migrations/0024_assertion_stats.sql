-- What happened to each badge after it was issued (README "What happened to each badge"): counters per assertion,
-- kind of event, UTC day and bot/human, added by the API's in-process stats recorder every few seconds
-- (internal/stats). The organization, mode, badge, program and issuance are copied from the assertion, which never
-- changes them, so that a badge's or an issuance's roll-up is one index range scan and never a join over assertions.
-- No IP address, cookie or User-Agent is stored: only whether the User-Agent looked like a bot.
CREATE TABLE assertion_stats_daily (
    assertion_id uuid     NOT NULL REFERENCES assertions (id),
    kind         text     NOT NULL CHECK (kind IN ('view', 'verify_api', 'pdf', 'share_linkedin_add', 'share_linkedin_post',
                                                   'share_x', 'share_facebook', 'share_email', 'share_copy')),
    day          date     NOT NULL,
    bot          boolean  NOT NULL,
    n            bigint   NOT NULL CHECK (n >= 0),
    org_id       uuid     NOT NULL,
    mode         text     NOT NULL CHECK (mode IN ('live', 'test')),
    badge_id     uuid     NOT NULL,
    program_id   uuid     NOT NULL,
    issuance_id  uuid     NOT NULL,
    PRIMARY KEY (assertion_id, kind, day, bot)
);
CREATE INDEX assertion_stats_badge_idx ON assertion_stats_daily (org_id, mode, badge_id, day);
CREATE INDEX assertion_stats_program_idx ON assertion_stats_daily (org_id, mode, program_id, day);
CREATE INDEX assertion_stats_issuance_idx ON assertion_stats_daily (issuance_id, day);
