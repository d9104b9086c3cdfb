
-- name: LockReissueOriginal :one
-- The original of a reissue (or a cancel), in the key's organization and mode, locked for the transaction, so that
-- two reissues of it (or a reissue and a cancel) take turns.
SELECT * FROM assertions WHERE org_id = sqlc.arg(org_id) AND id = sqlc.arg(id) AND mode = sqlc.arg(mode) FOR UPDATE;

-- name: GetPendingReplacement :one
-- The replacement of an original still in the pipeline, if any.
SELECT id, issuance_id FROM assertions WHERE reissued_from = $1 AND state = 'PROCESSING' LIMIT 1;

-- name: InsertReplacement :exec
-- The replacement: the original's recipient, badge, program, dates and mode, in a new issuance of one recipient.
INSERT INTO assertions (id, org_id, issuance_id, badge_id, program_id, mode, api_version, seq, serial_number,
                        recipient_name, recipient_email, recipient_phone, recipient_sourced_id, receive_type,
                        issued_at, expired_at, created_at, reissued_from)
SELECT sqlc.arg(id), o.org_id, sqlc.arg(issuance_id), o.badge_id, o.program_id, o.mode, sqlc.arg(api_version), 0,
       sqlc.arg(serial_number), sqlc.arg(recipient_name), o.recipient_email, o.recipient_phone,
       o.recipient_sourced_id, o.receive_type, o.issued_at, o.expired_at, sqlc.arg(created_at), o.id
FROM assertions o WHERE o.id = sqlc.arg(original_id);

-- name: GetIssuanceAssertion :one
-- The first (for a reissue, the only) assertion of an issuance: the answer of a reissue replay.
SELECT id, reissued_from FROM assertions WHERE issuance_id = $1 AND seq = 0;

-- name: ReplaceOriginals :many
-- The originals of replacements among ids that were just issued (ISSUED or RECEIVED, credential in place) turn
-- REISSUED and name their replacement; an original no longer ISSUED or RECEIVED (revoked, expired meanwhile) is
-- left as it is. Returns what the caller needs to set the originals' status bits and record assertion.reissued.
UPDATE assertions o SET state = 'REISSUED', replaced_by = r.id, updated_at = now()
FROM assertions r
WHERE r.id = ANY(sqlc.arg(ids)::uuid[]) AND r.reissued_from = o.id AND r.state IN ('ISSUED', 'RECEIVED')
  AND o.state IN ('ISSUED', 'RECEIVED')
RETURNING o.id, o.org_id, o.issuance_id, o.badge_id, o.program_id, o.mode, o.state, o.error_code, r.id AS replacement_id,
  o.status_list_id, o.status_list_index;
