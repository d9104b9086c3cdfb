-- Renewal: a replacement that renews its original (a new validity from the badge's expiry policy) says so, so that
-- issuing it records assertion.renewed instead of assertion.reissued; an issuance made by a renewal request (one
-- assertion, or a bulk renewal of a badge) says so, so that GET /badges/{id}/renewals/{id} finds only renewals.
-- Evidence: the OB 3.0 evidence a v3 recipient carried, signed into the credential; NULL when none.
-- Constant defaults: no table rewrite.
ALTER TABLE assertions ADD COLUMN renewal boolean NOT NULL DEFAULT false, ADD COLUMN evidence jsonb;
ALTER TABLE issuances ADD COLUMN renewal boolean NOT NULL DEFAULT false;
