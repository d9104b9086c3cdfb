-- name: CreateProgram :one
INSERT INTO programs (id, org_id, name, description, url, category_code, starts_at, ends_at,
                      visible_on_org_page, image_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
RETURNING *;

-- name: GetProgram :one
SELECT * FROM programs WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL;

-- name: GetProgramForUpdate :one
SELECT * FROM programs WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE;

-- name: UpdateProgram :one
UPDATE programs SET name = $3, description = $4, url = $5, category_code = $6, starts_at = $7, ends_at = $8,
    visible_on_org_page = $9, image_id = $10, publish_status = 'PUBLISHED', updated_at = now()
WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL
RETURNING *;

-- name: DeleteProgram :execrows
UPDATE programs SET deleted_at = now(), updated_at = now()
WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL;

-- name: CountPrograms :one
SELECT count(*) FROM programs
WHERE org_id = $1 AND deleted_at IS NULL
  AND (sqlc.narg(category_code)::text IS NULL OR category_code = sqlc.narg(category_code));

-- name: ListPrograms :many
-- sort1..sort3 are the sort fields in order (createdAt, updatedAt, name; empty = unused) with their directions, and id
-- breaks the remaining ties (api/query.go normalizes the list). Each CASE not chosen is NULL for every row, which
-- sorts nothing; the tables hold one organization's programs/badges, so the sort needs no index.
SELECT * FROM programs
WHERE org_id = $1 AND deleted_at IS NULL
  AND (sqlc.narg(category_code)::text IS NULL OR category_code = sqlc.narg(category_code))
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

-- name: CountLivePrograms :one
SELECT count(*) FROM programs WHERE org_id = $1 AND id = ANY(sqlc.arg(ids)::uuid[]) AND deleted_at IS NULL;
