-- name: UpsertPerson :one
-- The person of an address, made on first use (admin member add, an invitation).
INSERT INTO people (id, email) VALUES (sqlc.arg(id), lower(sqlc.arg(email)))
ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
RETURNING *;

-- name: GetPersonByEmail :one
SELECT * FROM people WHERE email = lower(sqlc.arg(email));

-- name: ListMembershipsOfPerson :many
-- The organizations a person may pick, by name.
SELECT m.org_id, m.role, o.name AS org_name
FROM memberships m JOIN organizations o ON o.id = m.org_id
WHERE m.person_id = $1
ORDER BY o.name, m.org_id;

-- name: GetMembership :one
SELECT * FROM memberships WHERE org_id = $1 AND person_id = $2;

-- name: ListMembers :many
SELECT m.person_id, p.email, m.role, m.created_at
FROM memberships m JOIN people p ON p.id = m.person_id
WHERE m.org_id = $1
ORDER BY p.email;

-- name: AddMembership :one
-- Adds the person with role, or leaves an existing membership as it is (an invitation never changes a role).
INSERT INTO memberships (org_id, person_id, role) VALUES ($1, $2, $3)
ON CONFLICT (org_id, person_id) DO UPDATE SET role = memberships.role
RETURNING *;

-- name: LockOrgMembers :exec
-- Serialises changes of one organization's members, so two owners demoting each other cannot both succeed.
SELECT pg_advisory_xact_lock(hashtextextended('members:' || sqlc.arg(org_id)::uuid::text, 0));

-- name: CountOwners :one
SELECT count(*) FROM memberships WHERE org_id = $1 AND role = 'ORG_OWNER';

-- name: SetMemberRole :one
UPDATE memberships SET role = $3 WHERE org_id = $1 AND person_id = $2 RETURNING *;

-- name: RemoveMember :execrows
DELETE FROM memberships WHERE org_id = $1 AND person_id = $2;

-- name: CreateNamedAPIKey :one
INSERT INTO api_keys (id, org_id, key_hash, role, mode, name, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)
RETURNING id, org_id, role, mode, name, created_by, created_at;

-- name: ListOrgAPIKeys :many
SELECT k.id, k.role, k.mode, k.name, k.created_at, k.last_used_at, k.revoked_at, p.email AS created_by_email
FROM api_keys k LEFT JOIN people p ON p.id = k.created_by
WHERE k.org_id = $1
ORDER BY k.revoked_at IS NOT NULL, k.created_at DESC, k.id;

-- name: RevokeOrgAPIKey :one
-- Another organization's key is not found.
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 AND org_id = $2
RETURNING id, org_id, role, mode, revoked_at;

-- name: TouchAPIKey :exec
-- The key's last use, at most once a minute (the rest of the minute's uses change nothing).
UPDATE api_keys SET last_used_at = now()
WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute');

-- name: AppendAudit :exec
INSERT INTO audit_events (org_id, person_id, actor, action, target, detail, client_addr)
VALUES ($1, $2, $3, $4, $5, $6, $7);

-- name: ListAudit :many
-- Newest first, by keyset: the rows below before_id (0: from the newest).
SELECT * FROM audit_events
WHERE org_id = $1 AND (sqlc.arg(before_id)::bigint = 0 OR id < sqlc.arg(before_id)::bigint)
ORDER BY id DESC
LIMIT $2;

-- name: ListConsoleIssuances :many
-- One mode's issuances of an organization, newest first, after the keyset cursor (created_at, id); the filters
-- are optional (NULL: any).
SELECT i.id, i.badge_id, b.name AS badge_name, i.processing_status, i.assertion_count, i.credits_debited,
       i.created_at, i.failure
FROM issuances i JOIN badges b ON b.id = i.badge_id
WHERE i.org_id = sqlc.arg(org_id) AND i.mode = sqlc.arg(mode)
  AND (sqlc.narg(status)::text IS NULL OR i.processing_status = sqlc.narg(status)::text)
  AND (sqlc.narg(badge_id)::uuid IS NULL OR i.badge_id = sqlc.narg(badge_id)::uuid)
  AND (sqlc.narg(since)::timestamptz IS NULL OR i.created_at >= sqlc.narg(since)::timestamptz)
  AND (sqlc.narg(until)::timestamptz IS NULL OR i.created_at < sqlc.narg(until)::timestamptz)
  AND (sqlc.narg(after_at)::timestamptz IS NULL
       OR (i.created_at, i.id) < (sqlc.narg(after_at)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY i.created_at DESC, i.id DESC
LIMIT sqlc.arg(lim);

-- name: ListIssuanceRecipients :many
-- One page of an issuance's recipients in order, after seq; state and error code are optional filters, and
-- with_error keeps those with any error code (FAILED, or ISSUED whose notification failed). The console's
-- issuance page and `badged admin issuance inspect` both read an issuance's outcomes here and in
-- CountRecipientOutcomes.
SELECT id, seq, recipient_name, recipient_email, recipient_phone, state, error_code, step
FROM assertions
WHERE issuance_id = sqlc.arg(issuance_id) AND seq > sqlc.arg(after_seq)
  AND (sqlc.narg(state)::text IS NULL OR state = sqlc.narg(state)::text)
  AND (sqlc.narg(error_code)::text IS NULL OR error_code = sqlc.narg(error_code)::text)
  AND (NOT sqlc.arg(with_error)::boolean OR error_code IS NOT NULL)
ORDER BY seq
LIMIT sqlc.arg(lim);

-- name: ListCreditLedger :many
-- The credit history (credit_ledger), newest first, by keyset: the rows below before_id (0: from the newest).
SELECT * FROM credit_ledger
WHERE org_id = $1 AND (sqlc.arg(before_id)::bigint = 0 OR id < sqlc.arg(before_id)::bigint)
ORDER BY id DESC
LIMIT $2;

-- name: GetOrgIssuance :one
-- An issuance of the organization, either mode (the console shows which); another organization's is not found.
SELECT i.*, b.name AS badge_name FROM issuances i JOIN badges b ON b.id = i.badge_id
WHERE i.org_id = $1 AND i.id = $2;

-- name: CountRecipientOutcomes :many
-- An issuance's recipients by state and error code ('' for none), from the counters the assertions' triggers keep
-- (0037): a few rows, whatever the issuance's size.
SELECT state, error_code, n FROM issuance_outcome_counts
WHERE issuance_id = $1 AND n <> 0
ORDER BY state, error_code;

-- name: ListBadgeChoices :many
-- The badges the issuances filter offers, by name.
SELECT id, name FROM badges WHERE org_id = $1 ORDER BY name, id LIMIT 500;

-- name: GetOrgAssertionRef :one
-- An assertion of the organization (either mode), for the console's cancel and reissue.
SELECT id, issuance_id, mode FROM assertions WHERE org_id = $1 AND id = $2;
