
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
                        issued_at, expired_at, created_at, reissued_from, evidence)
SELECT sqlc.arg(id), o.org_id, sqlc.arg(issuance_id), o.badge_id, o.program_id, o.mode, sqlc.arg(api_version), 0,
       sqlc.arg(serial_number), sqlc.arg(recipient_name), o.recipient_email, o.recipient_phone,
       o.recipient_sourced_id, o.receive_type, o.issued_at, o.expired_at, sqlc.arg(created_at), o.id, o.evidence
FROM assertions o WHERE o.id = sqlc.arg(original_id);

-- name: GetIssuanceAssertion :one
-- The first (for a reissue, the only) assertion of an issuance: the answer of a reissue replay.
SELECT id, reissued_from FROM assertions WHERE issuance_id = $1 AND seq = 0;

-- name: ReplaceOriginals :many
-- The originals of replacements among ids that were just issued (ISSUED or RECEIVED, credential in place) turn
-- REISSUED and name their replacement; an original no longer ISSUED or RECEIVED (revoked, expired meanwhile) is
-- left as it is. Returns what the caller needs to set the originals' status bits and record assertion.reissued.
-- A renewal also replaces an original that expired meanwhile (renewing an expired badge is what it is for).
UPDATE assertions o SET state = 'REISSUED', replaced_by = r.id, updated_at = now()
FROM assertions r
WHERE r.id = ANY(sqlc.arg(ids)::uuid[]) AND r.reissued_from = o.id AND r.state IN ('ISSUED', 'RECEIVED')
  AND (o.state IN ('ISSUED', 'RECEIVED') OR (r.renewal AND o.state = 'EXPIRED'))
RETURNING o.id, o.org_id, o.issuance_id, o.badge_id, o.program_id, o.mode, o.state, o.error_code, r.id AS replacement_id,
  o.status_list_id, o.status_list_index, r.renewal;

-- name: InsertRenewal :exec
-- A renewal's replacement: like InsertReplacement, with a new validity and renewal set.
INSERT INTO assertions (id, org_id, issuance_id, badge_id, program_id, mode, api_version, seq, serial_number,
                        recipient_name, recipient_email, recipient_phone, recipient_sourced_id, receive_type,
                        issued_at, expired_at, created_at, reissued_from, renewal, evidence)
SELECT sqlc.arg(id), o.org_id, sqlc.arg(issuance_id), o.badge_id, o.program_id, o.mode, sqlc.arg(api_version),
       sqlc.arg(seq), sqlc.arg(serial_number), o.recipient_name, o.recipient_email, o.recipient_phone,
       o.recipient_sourced_id, o.receive_type, sqlc.arg(issued_at), sqlc.narg(expired_at), sqlc.arg(created_at), o.id,
       true, o.evidence
FROM assertions o WHERE o.id = sqlc.arg(original_id);

-- name: MarkIssuanceRenewal :exec
UPDATE issuances SET renewal = true WHERE id = $1;

-- name: LockRenewalCandidates :many
-- The originals a bulk renewal names, in the key's organization, badge and mode, locked in id order (so two bulk
-- renewals, or one and a single renew or cancel, take turns without deadlocking).
SELECT * FROM assertions
WHERE org_id = sqlc.arg(org_id) AND badge_id = sqlc.arg(badge_id) AND mode = sqlc.arg(mode)
  AND id = ANY(sqlc.arg(ids)::uuid[])
ORDER BY id FOR UPDATE;

-- name: LockExpiringBefore :many
-- The badge's assertions that expire before a date and can be renewed (ISSUED, RECEIVED or EXPIRED, no replacement
-- in the pipeline), locked in id order; at most lim rows (the caller asks for one more than it accepts).
SELECT a.* FROM assertions a
WHERE a.org_id = sqlc.arg(org_id) AND a.badge_id = sqlc.arg(badge_id) AND a.mode = sqlc.arg(mode)
  AND a.expired_at < sqlc.arg(before) AND a.state IN ('ISSUED', 'RECEIVED', 'EXPIRED')
  AND NOT EXISTS (SELECT 1 FROM assertions r WHERE r.reissued_from = a.id AND r.state = 'PROCESSING')
ORDER BY a.id LIMIT sqlc.arg(lim) FOR UPDATE OF a;

-- name: PendingReplacementsOf :many
-- The originals among ids whose replacement is still in the pipeline.
SELECT reissued_from::uuid AS original_id FROM assertions WHERE reissued_from = ANY(sqlc.arg(ids)::uuid[]) AND state = 'PROCESSING';

-- name: InsertRenewals :exec
-- The replacements of a bulk renewal, one per original, in one statement (InsertRenewal for many).
INSERT INTO assertions (id, org_id, issuance_id, badge_id, program_id, mode, api_version, seq, serial_number,
                        recipient_name, recipient_email, recipient_phone, recipient_sourced_id, receive_type,
                        issued_at, expired_at, created_at, reissued_from, renewal, evidence)
-- The i-th id, original and serial go together; seq is i (from 0).
SELECT a.id, o.org_id, sqlc.arg(issuance_id), o.badge_id, o.program_id, o.mode, sqlc.arg(api_version),
       (a.ord - 1)::int, c.serial, o.recipient_name, o.recipient_email, o.recipient_phone, o.recipient_sourced_id,
       o.receive_type, sqlc.arg(issued_at), sqlc.narg(expired_at), sqlc.arg(created_at), o.id, true, o.evidence
FROM unnest(sqlc.arg(ids)::uuid[]) WITH ORDINALITY AS a(id, ord)
JOIN unnest(sqlc.arg(original_ids)::uuid[]) WITH ORDINALITY AS b(original_id, ord) ON b.ord = a.ord
JOIN unnest(sqlc.arg(serials)::text[]) WITH ORDINALITY AS c(serial, ord) ON c.ord = a.ord
JOIN assertions o ON o.id = b.original_id;
