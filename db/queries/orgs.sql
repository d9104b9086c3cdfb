-- name: CreateOrganization :one
INSERT INTO organizations (id, name, credits) VALUES ($1, $2, $3) RETURNING *;

-- name: GetOrganization :one
SELECT * FROM organizations WHERE id = $1;

-- name: GrantCredits :one
UPDATE organizations SET credits = credits + sqlc.arg(amount), updated_at = now()
WHERE id = sqlc.arg(id) RETURNING *;

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
