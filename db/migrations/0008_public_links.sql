-- A recipient reaches their own PDF certificate from the public badge page and from the mail, without an API key.
-- The link carries a random token per assertion so that it cannot be guessed from the (public) assertion id.
ALTER TABLE assertions ADD COLUMN certificate_token uuid NOT NULL DEFAULT gen_random_uuid();
