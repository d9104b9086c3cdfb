-- name: CreateBadge :one
INSERT INTO badges (id, org_id, name, description, criteria, category_code, expiration_kind, expiration_months,
                    expiration_fixed_at, image_id, signature_image_id, skills)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
RETURNING *;

-- name: GetBadge :one
SELECT * FROM badges WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL;

-- name: GetBadgeForUpdate :one
SELECT * FROM badges WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE;

-- name: UpdateBadge :one
UPDATE badges SET name = $3, description = $4, criteria = $5, category_code = $6, expiration_kind = $7,
    expiration_months = $8, expiration_fixed_at = $9, image_id = $10, signature_image_id = $11, skills = $12,
    publish_status = 'PUBLISHED', updated_at = now()
WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL
RETURNING *;

-- name: DeleteBadge :execrows
UPDATE badges SET deleted_at = now(), updated_at = now()
WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL;

-- name: CountBadges :one
SELECT count(*) FROM badges b
WHERE b.org_id = $1 AND b.deleted_at IS NULL
  AND (sqlc.narg(category_code)::text IS NULL OR b.category_code = sqlc.narg(category_code))
  AND (sqlc.narg(program_id)::uuid IS NULL OR EXISTS (
        SELECT 1 FROM program_badges pb WHERE pb.badge_id = b.id AND pb.program_id = sqlc.narg(program_id)));

-- name: ListBadges :many
SELECT * FROM badges b
WHERE b.org_id = $1 AND b.deleted_at IS NULL
  AND (sqlc.narg(category_code)::text IS NULL OR b.category_code = sqlc.narg(category_code))
  AND (sqlc.narg(program_id)::uuid IS NULL OR EXISTS (
        SELECT 1 FROM program_badges pb WHERE pb.badge_id = b.id AND pb.program_id = sqlc.narg(program_id)))
ORDER BY
    CASE WHEN sqlc.arg(sort_key)::text = 'name' AND sqlc.arg(sort_desc)::bool THEN name END DESC,
    CASE WHEN sqlc.arg(sort_key)::text = 'name' AND NOT sqlc.arg(sort_desc)::bool THEN name END ASC,
    CASE WHEN sqlc.arg(sort_key)::text = 'updatedAt' AND sqlc.arg(sort_desc)::bool THEN updated_at END DESC,
    CASE WHEN sqlc.arg(sort_key)::text = 'updatedAt' AND NOT sqlc.arg(sort_desc)::bool THEN updated_at END ASC,
    CASE WHEN sqlc.arg(sort_desc)::bool THEN created_at END DESC,
    CASE WHEN NOT sqlc.arg(sort_desc)::bool THEN created_at END ASC,
    CASE WHEN sqlc.arg(sort_desc)::bool THEN id END DESC,
    CASE WHEN NOT sqlc.arg(sort_desc)::bool THEN id END ASC
LIMIT sqlc.arg(lim) OFFSET sqlc.arg(off);

-- name: CountLiveBadges :one
SELECT count(*) FROM badges WHERE org_id = $1 AND id = ANY(sqlc.arg(ids)::uuid[]) AND deleted_at IS NULL;
