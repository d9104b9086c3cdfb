-- The check step's conflict query (FindConflicts, db/queries/pipeline.sql) looks up, for each recipient of a chunk,
-- the other assertions of the same badge with the same identity. The identity indexes of 0001 are per organization
-- and live mode only (they serve the list API), so the planner fell back to every assertion of the badge, once per
-- recipient: quadratic in the badge's size (a 100,000-recipient issuance spent 20–37 s per chunk in it, measured on
-- the cluster). These index the identity under the badge for both modes, so each lookup reads a handful of rows.
CREATE INDEX assertions_badge_email_idx ON assertions (badge_id, recipient_email) WHERE recipient_email IS NOT NULL;
CREATE INDEX assertions_badge_phone_idx ON assertions (badge_id, recipient_phone) WHERE recipient_phone IS NOT NULL;
CREATE INDEX assertions_badge_sourced_idx ON assertions (badge_id, recipient_sourced_id) WHERE recipient_sourced_id IS NOT NULL;
