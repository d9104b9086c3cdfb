-- Expiry reminders (issue 22): the claim of a reminder is a lease. The sweep that claims or retakes a CLAIMED row
-- writes itself as claimed_by until claimed_until (the database's clock); another sweep takes the row only after the
-- lease ran out (its holder died), so two sweeps side by side send each reminder once. Rows claimed before this
-- migration have no lease: any sweep may take them.
ALTER TABLE expiry_reminders ADD COLUMN claimed_by text, ADD COLUMN claimed_until timestamptz;

-- The renewal link of an expiry reminder: where the organization lets a recipient ask for a renewal (its own page,
-- which holds the API key and calls POST /public/v3/assertions/{id}/renew). NULL: the organization does not offer
-- renewal, and reminders carry no link. {assertionId} in it is replaced by the assertion's id.
ALTER TABLE organizations ADD COLUMN renewal_url text
    CHECK (renewal_url IS NULL OR (renewal_url ~ '^https://' AND length(renewal_url) <= 2048));
