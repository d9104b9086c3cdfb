-- name: CreateOrganization :one
INSERT INTO organizations (id, name, credits) VALUES ($1, $2, $3) RETURNING *;

-- name: GetOrganization :one
SELECT * FROM organizations WHERE id = $1;

-- name: GrantCredits :one
UPDATE organizations SET credits = credits + sqlc.arg(amount), updated_at = now()
WHERE id = sqlc.arg(id) RETURNING *;
