-- The public badge page shows the issuer's profile and why a badge was revoked.
-- The logo is an image the organization uploaded (media_files), so the page serves it itself and never fetches
-- from another host; website_url is only linked.
ALTER TABLE organizations ADD COLUMN website_url text CHECK (website_url IS NULL OR website_url ~ '^https?://'),
                          ADD COLUMN logo_media_id uuid REFERENCES media_files (id);
-- The reason given with a cancel (optional); its length is checked by the API (500 characters).
ALTER TABLE assertions ADD COLUMN revocation_reason text;
