-- name: LinkProgramBadge :exec
INSERT INTO program_badges (org_id, program_id, badge_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING;

-- name: UnlinkProgramBadges :exec
-- Removes the program's links to badges not in keep (all of them when keep is empty).
DELETE FROM program_badges WHERE org_id = $1 AND program_id = $2 AND NOT (badge_id = ANY(sqlc.arg(keep)::uuid[]));

-- name: UnlinkBadgePrograms :exec
-- Removes the badge's links to programs not in keep (all of them when keep is empty).
DELETE FROM program_badges WHERE org_id = $1 AND badge_id = $2 AND NOT (program_id = ANY(sqlc.arg(keep)::uuid[]));

-- name: ListBadgeIDsOfPrograms :many
-- Joins the badge so that a link racing a badge delete never shows a deleted badge.
SELECT pb.program_id, pb.badge_id FROM program_badges pb
JOIN badges b ON b.id = pb.badge_id AND b.deleted_at IS NULL
WHERE pb.org_id = $1 AND pb.program_id = ANY(sqlc.arg(program_ids)::uuid[])
ORDER BY pb.program_id, pb.created_at, pb.badge_id;

-- name: ListProgramIDsOfBadges :many
SELECT pb.badge_id, pb.program_id FROM program_badges pb
JOIN programs p ON p.id = pb.program_id AND p.deleted_at IS NULL
WHERE pb.org_id = $1 AND pb.badge_id = ANY(sqlc.arg(badge_ids)::uuid[])
ORDER BY pb.badge_id, pb.created_at, pb.program_id;
