-- Queries of the issuance pipeline. Every step works on a chunk of one issuance's assertions at once: one round
-- trip reads the chunk, one statement records the step for all of it. Each update is conditional on the step the
-- assertion is at, so a retried or repeated step never moves an assertion backwards or records it twice.

-- name: ListBatch :many
SELECT id, seq, step, state FROM assertions
WHERE issuance_id = $1 AND seq >= sqlc.arg(from_seq) AND seq < sqlc.arg(to_seq)
ORDER BY seq;

-- name: GetPipelineAssertion :one
-- Everything a pipeline step reads about one assertion, in one round trip.
SELECT sqlc.embed(a), b.name AS badge_name, b.description AS badge_description, b.criteria AS badge_criteria,
       b.skills AS badge_skills, b.image_id AS badge_image_id, o.name AS org_name
FROM assertions a
JOIN badges b ON b.id = a.badge_id
JOIN organizations o ON o.id = a.org_id
WHERE a.id = $1;

-- name: ListPipelineAssertions :many
-- GetPipelineAssertion for a chunk, in seq order.
SELECT sqlc.embed(a), b.name AS badge_name, b.description AS badge_description, b.criteria AS badge_criteria,
       b.skills AS badge_skills, b.image_id AS badge_image_id, o.name AS org_name,
       o.renewal_url AS org_renewal_url, -- expiry reminders (activities/remind.go)
       o.website_url AS org_website_url -- the issuer's url (internal/issuer Profile)
FROM assertions a
JOIN badges b ON b.id = a.badge_id
JOIN organizations o ON o.id = a.org_id
WHERE a.id = ANY(sqlc.arg(ids)::uuid[])
ORDER BY a.issuance_id, a.seq;

-- name: AdvanceAssertions :execrows
-- Records a completed step for the assertions still at from_step.
UPDATE assertions SET step = sqlc.arg(step), updated_at = now()
WHERE id = ANY(sqlc.arg(ids)::uuid[]) AND state = 'PROCESSING' AND step = sqlc.arg(from_step);

-- name: SetLockTimeout :exec
SELECT set_config('lock_timeout', sqlc.arg(timeout)::text, true);

-- name: LockRecipients :exec
-- Serialises the duplicate checks of recipient identities within one badge, for the transaction. The caller
-- passes the keys sorted, and they are locked in that order, so two chunks never wait for each other in a cycle.
SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
FROM (SELECT k FROM unnest(sqlc.arg(lock_keys)::text[]) WITH ORDINALITY AS u(k, n) ORDER BY n) keys;

-- name: FindConflicts :many
-- For each assertion of the chunk, another assertion of the same badge and identity that wins over it: an issued
-- one not yet expired or revoked, one being issued by another issuance (past its check), or a lower seq of the
-- same issuance. The identity is the email, else the phone number, else the sourcedId. A reissue's replacement
-- passes its own original, which stays issued until the replacement is. The candidates come from one equality on
-- the badge's identity index (migration 0027), never from every assertion of the badge: the cost per recipient does
-- not grow with the badge. The filters apply to those rows themselves (no join back to assertions by id), and there
-- is no org_id filter: a badge is one organization's, and with one the planner ANDed in the organization's index when
-- its statistics lagged (a 100,000-recipient run on the cluster read ~350,000 index entries per recipient, 15 s and
-- more per chunk; without it: 500 lookups in ~9 ms on that database, EXPLAIN ANALYZE).
SELECT a.id, c.id AS other_id
FROM assertions a
CROSS JOIN LATERAL (
    SELECT o.id FROM (
        SELECT e.id, e.mode, e.state, e.expired_at, e.issuance_id, e.step, e.seq FROM assertions e
        WHERE a.recipient_email IS NOT NULL AND e.badge_id = a.badge_id AND e.recipient_email = a.recipient_email
        UNION ALL
        SELECT p.id, p.mode, p.state, p.expired_at, p.issuance_id, p.step, p.seq FROM assertions p
        WHERE a.recipient_email IS NULL AND a.recipient_phone IS NOT NULL
          AND p.badge_id = a.badge_id AND p.recipient_phone = a.recipient_phone
        UNION ALL
        SELECT s.id, s.mode, s.state, s.expired_at, s.issuance_id, s.step, s.seq FROM assertions s
        WHERE a.recipient_email IS NULL AND a.recipient_phone IS NULL
          AND s.badge_id = a.badge_id AND s.recipient_sourced_id = a.recipient_sourced_id
    ) o
    WHERE o.mode = a.mode AND o.id <> a.id
      AND o.id IS DISTINCT FROM a.reissued_from -- a replacement never conflicts with the original it replaces
      AND ((o.state IN ('ISSUED', 'RECEIVED') AND (o.expired_at IS NULL OR o.expired_at > now()))
        OR (o.state = 'PROCESSING' AND o.issuance_id <> a.issuance_id AND o.step <> 'PENDING')
        OR (o.state = 'PROCESSING' AND o.issuance_id = a.issuance_id AND o.seq < a.seq))
    LIMIT 1
) c
WHERE a.id = ANY(sqlc.arg(ids)::uuid[]);

-- name: GetIssuerKey :one
-- The key of the organization's live or test issuer (issuer.Service: one issuer per mode).
SELECT * FROM issuer_keys WHERE org_id = $1 AND mode = $2;

-- name: CreateIssuerKey :exec
-- Of concurrent first uses exactly one key is kept; the others read it.
INSERT INTO issuer_keys (org_id, mode, public_key, sealed_key) VALUES ($1, $2, $3, $4) ON CONFLICT (org_id, mode) DO NOTHING;

-- name: LockStatusAllocation :exec
-- Serialises status-list allocation per organization and mode for the transaction, so concurrent first issuances
-- fill one list instead of each opening its own (a list with one entry tells its host whose badge is checked).
SELECT pg_advisory_xact_lock(hashtextextended('status-list/' || sqlc.arg(org_id)::uuid::text || '/' || sqlc.arg(mode)::text, 0));

-- name: GetOpenStatusList :one
SELECT * FROM status_lists WHERE org_id = $1 AND mode = $2 AND next_index < size
ORDER BY created_at LIMIT 1 FOR UPDATE;

-- name: CreateStatusList :one
INSERT INTO status_lists (id, org_id, mode, size, bits) VALUES ($1, $2, $3, $4, $5) RETURNING *;

-- name: TakeStatusIndexes :one
-- Takes n consecutive entries of a list; the caller takes no more than the list has left.
UPDATE status_lists SET next_index = next_index + sqlc.arg(n)::int, updated_at = now()
WHERE id = $1 AND next_index + sqlc.arg(n)::int <= size
RETURNING next_index - sqlc.arg(n)::int;

-- name: SetAssertionStatusEntries :execrows
UPDATE assertions a SET status_list_id = sqlc.arg(list_id)::uuid, status_list_index = u.idx, updated_at = now()
FROM (SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(indexes)::int[]) AS idx) AS u
WHERE a.id = u.id AND a.status_list_id IS NULL;

-- name: GetStatusList :one
SELECT * FROM status_lists WHERE id = $1;

-- name: SetStatusBit :exec
-- bit_index is Postgres's numbering (LSB first within a byte); the caller converts from the W3C index.
UPDATE status_lists SET bits = set_bit(bits, sqlc.arg(bit_index)::int, 1), updated_at = now() WHERE id = sqlc.arg(id);

-- name: SetAssertionCredentials :execrows
UPDATE assertions a SET credential_json = u.doc, credential_sha256 = u.sha, step = 'SIGNED', updated_at = now()
FROM (SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(docs)::bytea[]) AS doc, unnest(sqlc.arg(shas)::bytea[]) AS sha) AS u
WHERE a.id = u.id AND a.state = 'PROCESSING' AND a.step = 'CHECKED';

-- name: LockAnchorCandidates :many
-- The signed credentials of a chunk not yet assigned to an anchor transaction, locked until the assignment commits.
SELECT id, credential_sha256 FROM assertions
WHERE id = ANY(sqlc.arg(ids)::uuid[]) AND state = 'PROCESSING' AND step = 'SIGNED' AND anchor_key IS NULL
ORDER BY id
FOR UPDATE;

-- name: AssignAnchor :execrows
-- Assigns credentials to the anchor transaction stored under anchor_key, with each one's Merkle inclusion proof.
UPDATE assertions a SET anchor_key = sqlc.arg(anchor_key)::text, anchor_proof = u.proof::jsonb, updated_at = now()
FROM (SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(proofs)::text[]) AS proof) AS u
WHERE a.id = u.id AND a.anchor_key IS NULL;

-- name: ListAnchorMembers :many
-- Every credential assigned to an anchor transaction, in the order of the Merkle leaves (digest bytes), whatever
-- became of its recipient since: the root covers them all.
SELECT id, credential_sha256 FROM assertions WHERE anchor_key = sqlc.arg(anchor_key)::text ORDER BY credential_sha256;

-- name: ListAnchorState :many
SELECT id, mode, step, anchor_key FROM assertions
WHERE id = ANY(sqlc.arg(ids)::uuid[]) AND state = 'PROCESSING';

-- name: RecordAnchorMined :execrows
UPDATE assertions SET anchor_tx_hash = sqlc.arg(tx_hash)::text, anchor_block = sqlc.arg(block)::bigint,
    anchor_chain_id = sqlc.arg(chain_id)::bigint, step = 'ANCHORED', updated_at = now()
WHERE anchor_key = sqlc.arg(anchor_key)::text AND state = 'PROCESSING' AND step = 'SIGNED';

-- name: SetAssertionsBaked :execrows
UPDATE assertions a SET baked_key = u.key, baked_content_type = u.content_type, step = 'BAKED', updated_at = now()
FROM (SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(keys)::text[]) AS key, unnest(sqlc.arg(content_types)::text[]) AS content_type) AS u
WHERE a.id = u.id AND a.state = 'PROCESSING' AND a.step = 'ANCHORED';

-- name: SetAssertionsPublished :execrows
UPDATE assertions a SET credential_key = u.key, step = 'UPLOADED', updated_at = now()
FROM (SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(keys)::text[]) AS key) AS u
WHERE a.id = u.id AND a.state = 'PROCESSING' AND a.step = 'BAKED';

-- name: ListOutcomeInputs :many
SELECT id, state, error_code, api_version, mode, org_id FROM assertions WHERE id = ANY(sqlc.arg(ids)::uuid[])
ORDER BY id FOR UPDATE;

-- name: FinishAssertions :many
-- Writes outcomes once; an assertion already finished (a retried activity) is left as it is and not returned.
UPDATE assertions a SET state = u.state, error_code = NULLIF(u.code, ''), updated_at = now()
FROM (SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(states)::text[]) AS state, unnest(sqlc.arg(codes)::text[]) AS code) AS u
WHERE a.id = u.id AND a.state = 'PROCESSING'
RETURNING a.id;

-- name: GetAssertionOutcome :one
SELECT state, error_code FROM assertions WHERE id = $1;

-- name: RefundCredits :exec
-- The credits of n failed live recipients of an issuance go back, with their ledger row in the same statement.
WITH o AS (
    UPDATE organizations SET credits = credits + sqlc.arg(n)::int, updated_at = now() WHERE organizations.id = $1
    RETURNING id, credits
)
INSERT INTO credit_ledger (org_id, delta, kind, issuance_id, balance_after)
SELECT o.id, sqlc.arg(n)::int, 'refund', sqlc.arg(issuance_id)::uuid, o.credits FROM o WHERE sqlc.arg(n)::int <> 0;

-- name: GetAssertionByID :one
SELECT * FROM assertions WHERE id = $1;

-- name: FailRemainingAssertions :one
-- Closes a failed run: recipients without an outcome fail with INTERNAL_SERVER_ERROR and live ones are refunded.
-- It returns how many it failed.
WITH failed AS (
    UPDATE assertions SET state = 'FAILED', error_code = 'INTERNAL_SERVER_ERROR', updated_at = now()
    WHERE assertions.issuance_id = $1 AND state = 'PROCESSING'
    RETURNING org_id, mode
), refunded AS (
    UPDATE organizations o SET credits = o.credits + f.n, updated_at = now()
    FROM (SELECT org_id, count(*) AS n FROM failed WHERE mode = 'live' GROUP BY org_id) f
    WHERE o.id = f.org_id
    RETURNING o.id, o.credits, f.n
), ledger AS (
    INSERT INTO credit_ledger (org_id, delta, kind, issuance_id, balance_after)
    SELECT id, n, 'refund', $1, credits FROM refunded
)
SELECT count(*) FROM failed;

-- name: CreateNotification :exec
INSERT INTO notifications (assertion_id, message_id, channel) VALUES ($1, $2, $3) ON CONFLICT (assertion_id) DO NOTHING;

-- name: CreateNotifications :exec
INSERT INTO notifications (assertion_id, message_id, channel)
SELECT unnest(sqlc.arg(ids)::uuid[]), unnest(sqlc.arg(message_ids)::text[]), unnest(sqlc.arg(channels)::text[])
ON CONFLICT (assertion_id) DO NOTHING;

-- name: GetNotification :one
SELECT * FROM notifications WHERE assertion_id = $1;

-- name: ListNotifications :many
SELECT * FROM notifications WHERE assertion_id = ANY(sqlc.arg(ids)::uuid[]);

-- name: MarkNotificationSent :exec
UPDATE notifications SET status = 'SENT', attempts = attempts + 1, sent_at = now(), last_error = NULL, updated_at = now()
WHERE assertion_id = $1;

-- name: MarkNotificationFailed :exec
UPDATE notifications SET attempts = attempts + 1, last_error = $2, updated_at = now() WHERE assertion_id = $1;

-- name: ExpireAssertions :one
-- One bounded batch of the expiry job; the caller repeats until it returns less than the batch. In the same
-- statement (so the same transaction), an assertion.expired webhook event per expired assertion whose
-- organization has an enabled endpoint subscribed to it (internal/webhook: the payload's keys match AssertionData).
WITH expired AS (
    UPDATE assertions SET state = 'EXPIRED', updated_at = now()
    WHERE id IN (SELECT id FROM assertions
                 WHERE state IN ('ISSUED', 'RECEIVED') AND expired_at <= now()
                 ORDER BY expired_at LIMIT sqlc.arg(batch)::int
                 FOR UPDATE SKIP LOCKED)
    RETURNING id, org_id, issuance_id, badge_id, program_id, mode, state, error_code
), events AS (
    INSERT INTO webhook_events (id, org_id, type, data)
    SELECT 'evt_' || gen_random_uuid(), x.org_id, 'assertion.expired',
           jsonb_build_object('assertionId', x.id, 'issuanceId', x.issuance_id, 'badgeId', x.badge_id,
                              'programId', x.program_id, 'stateCode', x.state, 'errorCode', x.error_code, 'mode', x.mode)
    FROM expired x
    WHERE EXISTS (SELECT 1 FROM webhook_endpoints e
                  WHERE e.org_id = x.org_id AND e.disabled_at IS NULL
                    AND (cardinality(e.events) = 0 OR 'assertion.expired' = ANY (e.events)))
)
SELECT count(*) FROM expired;

-- name: LockRecipientSlices :many
-- The staged slices overlapping [from_seq, to_seq), locked until the transaction that writes their assertions ends.
SELECT * FROM issuance_recipient_slices
WHERE issuance_id = $1 AND from_seq < sqlc.arg(to_seq)::integer AND to_seq > sqlc.arg(from_seq)::integer
ORDER BY from_seq
FOR UPDATE;

-- name: DeleteRecipientSlice :exec
DELETE FROM issuance_recipient_slices WHERE issuance_id = $1 AND from_seq = $2;
