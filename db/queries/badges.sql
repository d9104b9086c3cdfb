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
-- sort1..sort3 are the sort fields in order (createdAt, updatedAt, name; empty = unused) with their directions, and id
-- breaks the remaining ties (api/query.go normalizes the list). Each CASE not chosen is NULL for every row, which
-- sorts nothing; the tables hold one organization's programs/badges, so the sort needs no index.
SELECT * FROM badges b
WHERE b.org_id = $1 AND b.deleted_at IS NULL
  AND (sqlc.narg(category_code)::text IS NULL OR b.category_code = sqlc.narg(category_code))
  AND (sqlc.narg(program_id)::uuid IS NULL OR EXISTS (
        SELECT 1 FROM program_badges pb WHERE pb.badge_id = b.id AND pb.program_id = sqlc.narg(program_id)))
ORDER BY
    CASE WHEN sqlc.arg(sort1)::text = 'name' AND sqlc.arg(desc1)::bool THEN name END DESC,
    CASE WHEN sqlc.arg(sort1)::text = 'name' AND NOT sqlc.arg(desc1)::bool THEN name END,
    CASE WHEN sqlc.arg(sort1)::text = 'updatedAt' AND sqlc.arg(desc1)::bool THEN updated_at END DESC,
    CASE WHEN sqlc.arg(sort1)::text = 'updatedAt' AND NOT sqlc.arg(desc1)::bool THEN updated_at END,
    CASE WHEN sqlc.arg(sort1)::text = 'createdAt' AND sqlc.arg(desc1)::bool THEN created_at END DESC,
    CASE WHEN sqlc.arg(sort1)::text = 'createdAt' AND NOT sqlc.arg(desc1)::bool THEN created_at END,
    CASE WHEN sqlc.arg(sort2)::text = 'name' AND sqlc.arg(desc2)::bool THEN name END DESC,
    CASE WHEN sqlc.arg(sort2)::text = 'name' AND NOT sqlc.arg(desc2)::bool THEN name END,
    CASE WHEN sqlc.arg(sort2)::text = 'updatedAt' AND sqlc.arg(desc2)::bool THEN updated_at END DESC,
    CASE WHEN sqlc.arg(sort2)::text = 'updatedAt' AND NOT sqlc.arg(desc2)::bool THEN updated_at END,
    CASE WHEN sqlc.arg(sort2)::text = 'createdAt' AND sqlc.arg(desc2)::bool THEN created_at END DESC,
    CASE WHEN sqlc.arg(sort2)::text = 'createdAt' AND NOT sqlc.arg(desc2)::bool THEN created_at END,
    CASE WHEN sqlc.arg(sort3)::text = 'name' AND sqlc.arg(desc3)::bool THEN name END DESC,
    CASE WHEN sqlc.arg(sort3)::text = 'name' AND NOT sqlc.arg(desc3)::bool THEN name END,
    CASE WHEN sqlc.arg(sort3)::text = 'updatedAt' AND sqlc.arg(desc3)::bool THEN updated_at END DESC,
    CASE WHEN sqlc.arg(sort3)::text = 'updatedAt' AND NOT sqlc.arg(desc3)::bool THEN updated_at END,
    CASE WHEN sqlc.arg(sort3)::text = 'createdAt' AND sqlc.arg(desc3)::bool THEN created_at END DESC,
    CASE WHEN sqlc.arg(sort3)::text = 'createdAt' AND NOT sqlc.arg(desc3)::bool THEN created_at END,
    CASE WHEN sqlc.arg(id_desc)::bool THEN id END DESC,
    CASE WHEN NOT sqlc.arg(id_desc)::bool THEN id END
LIMIT sqlc.arg(lim) OFFSET sqlc.arg(off);

-- name: CountLiveBadges :one
SELECT count(*) FROM badges WHERE org_id = $1 AND id = ANY(sqlc.arg(ids)::uuid[]) AND deleted_at IS NULL;
