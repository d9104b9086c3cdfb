-- name: CreateOrganization :one
-- The credits it starts with are the ledger's 'opening' row, written by the same statement (0037_credit_ledger;
-- the row's foreign key is checked at the statement's end, after the organization is in).
WITH l AS (
    INSERT INTO credit_ledger (org_id, delta, kind, balance_after, actor)
    SELECT sqlc.arg(id)::uuid, sqlc.arg(credits)::bigint, 'opening', sqlc.arg(credits)::bigint, sqlc.narg(actor)::text
    WHERE sqlc.arg(credits)::bigint <> 0
)
INSERT INTO organizations (id, name, credits) VALUES (sqlc.arg(id)::uuid, sqlc.arg(name), sqlc.arg(credits)::bigint)
RETURNING *;

-- name: GetOrganization :one
SELECT * FROM organizations WHERE id = $1;

-- name: GrantCredits :one
-- With its ledger row, in the same statement.
WITH o AS (
    UPDATE organizations SET credits = credits + sqlc.arg(amount), updated_at = now()
    WHERE organizations.id = sqlc.arg(id) RETURNING *
), l AS (
    INSERT INTO credit_ledger (org_id, delta, kind, balance_after, actor)
    SELECT o.id, sqlc.arg(amount), 'grant', o.credits, sqlc.narg(actor)::text FROM o
)
SELECT * FROM o;

-- name: UpdateOrganizationProfile :one
-- Each field is changed only when given (NULL keeps it); the empty string clears website_url, renewal_url and
-- description.
UPDATE organizations SET
    name = COALESCE(sqlc.narg(name), name),
    website_url = CASE WHEN sqlc.narg(website_url)::text IS NULL THEN website_url ELSE NULLIF(sqlc.narg(website_url)::text, '') END,
    logo_media_id = COALESCE(sqlc.narg(logo_media_id), logo_media_id),
    wallet_offers = COALESCE(sqlc.narg(wallet_offers)::boolean, wallet_offers),
    renewal_url = CASE WHEN sqlc.narg(renewal_url)::text IS NULL THEN renewal_url ELSE NULLIF(sqlc.narg(renewal_url)::text, '') END,
    description = CASE WHEN sqlc.narg(description)::text IS NULL THEN description ELSE NULLIF(sqlc.narg(description)::text, '') END,
    updated_at = now()
WHERE id = sqlc.arg(id) RETURNING *;
