-- name: CreateMediaFile :one
INSERT INTO media_files (id, org_id, content_type, ext, width, height, size_bytes)
VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *;

-- name: GetMediaFile :one
SELECT * FROM media_files WHERE org_id = $1 AND id = $2;

-- name: ListMediaFilesByIDs :many
SELECT * FROM media_files WHERE org_id = $1 AND id = ANY(sqlc.arg(ids)::uuid[]);

-- name: GetMediaFileAnyOrg :one
-- Public image serving: media URLs carry no key, only the random id.
SELECT * FROM media_files WHERE id = $1;
