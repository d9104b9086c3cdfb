-- The public faces of an organization (issue 31): its page at its issuer id, each badge's page at its achievement id,
-- and honest counting of views and share clicks.

-- The organization's own words on its page (badged admin org update --description); NULL: none.
ALTER TABLE organizations ADD COLUMN description text CHECK (description IS NULL OR char_length(description) <= 2000);

-- The organization page lists its visible programs, newest first, 50 a page: one range of this index.
CREATE INDEX programs_org_page_idx ON programs (org_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL AND visible_on_org_page AND publish_status = 'PUBLISHED';

-- "How many hold it now": live credentials issued or received, counted per badge from this index alone (an
-- index-only scan; expiry is read from the index, so a credential stops counting the moment it expires).
CREATE INDEX assertions_holders_idx ON assertions (badge_id, expired_at)
    WHERE mode = 'live' AND state IN ('ISSUED', 'RECEIVED');

-- Once per visitor (internal/stats): a visitor is HMAC-SHA-256(key of the UTC day, digest of client address and
-- User-Agent), truncated to 16 bytes. The key of each day is drawn by whichever API process needs it first and
-- kept here, so every process names the same visitor the same way; keys older than yesterday are deleted, and with
-- them any way to link a day's visitors to another day's or to an address.
CREATE TABLE stats_visitor_keys (
    day date  PRIMARY KEY,
    key bytea NOT NULL CHECK (octet_length(key) = 32)
);

-- The visitors already counted today and yesterday, per assertion and kind: an event whose row exists adds nothing.
-- Rows older than yesterday are deleted with their key.
CREATE TABLE stats_visits (
    day          date  NOT NULL,
    assertion_id uuid  NOT NULL,
    kind         text  NOT NULL,
    visitor      bytea NOT NULL CHECK (octet_length(visitor) = 16),
    PRIMARY KEY (day, assertion_id, kind, visitor)
);
