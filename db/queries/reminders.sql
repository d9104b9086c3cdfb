-- name: ClaimDueReminders :many
-- One bounded batch of the reminder sweep (activities/remind.go). For each live assertion of a badge with a
-- policy whose expiry is within the policy's longest reminder, the due reminder is the smallest number of days d
-- with expiry - d days <= now: one message however many reminders fell due at once (a policy added late, a short
-- validity). It is claimed by inserting its (assertion, days) row unless that reminder or a nearer one was already
-- claimed, so a policy edit reschedules only what was not sent and never sends an earlier reminder after a later
-- one. In the same statement, an assertion.expiring webhook event per claimed reminder whose organization has an
-- enabled endpoint subscribed to it (internal/webhook: the payload's keys match AssertionData). The claim is a
-- lease: the row names its sweep (owner) until the database's clock passes claimed_until, and no other sweep takes
-- it before (TakePendingReminders); a sweep running beside this one blocks on the rows this one inserts and skips
-- them (ON CONFLICT DO NOTHING), so each claimed row is returned to one sweep.
WITH due AS (
    SELECT a.id, a.org_id, a.issuance_id, a.badge_id, a.program_id, a.state, a.error_code, a.mode, a.receive_type,
           a.expired_at, d.days
    FROM badges b
    CROSS JOIN LATERAL (SELECT max(x) AS horizon FROM unnest(b.expiry_reminders) x) h
    JOIN assertions a ON a.badge_id = b.id AND a.state IN ('ISSUED', 'RECEIVED')
        AND a.expired_at > sqlc.arg(now)::timestamptz
        AND a.expired_at <= sqlc.arg(now)::timestamptz + make_interval(days => h.horizon)
    CROSS JOIN LATERAL (SELECT min(x)::int AS days FROM unnest(b.expiry_reminders) x
                        WHERE a.expired_at <= sqlc.arg(now)::timestamptz + make_interval(days => x)) d
    WHERE b.expiry_reminders <> '{}' AND b.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM expiry_reminders r WHERE r.assertion_id = a.id AND r.days_before <= d.days)
    LIMIT sqlc.arg(batch)::int
), claimed AS (
    INSERT INTO expiry_reminders (assertion_id, days_before, org_id, expires_at, channel, next_attempt_at, claimed_at,
                                  claimed_by, claimed_until)
    SELECT id, days, org_id, expired_at, receive_type, sqlc.arg(now)::timestamptz, sqlc.arg(now)::timestamptz,
           sqlc.arg(owner)::text, clock_timestamp() + make_interval(secs => sqlc.arg(lease_seconds)::float8)
    FROM due
    ON CONFLICT DO NOTHING
    RETURNING assertion_id, days_before
), events AS (
    INSERT INTO webhook_events (id, org_id, type, data)
    SELECT 'evt_' || gen_random_uuid(), x.org_id, 'assertion.expiring',
           jsonb_build_object('assertionId', x.id, 'issuanceId', x.issuance_id, 'badgeId', x.badge_id,
                              'programId', x.program_id, 'stateCode', x.state, 'errorCode', x.error_code, 'mode', x.mode,
                              'daysBefore', x.days,
                              'expiredAt', to_char(x.expired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
    FROM claimed c JOIN due x ON x.id = c.assertion_id AND x.days = c.days_before
    WHERE EXISTS (SELECT 1 FROM webhook_endpoints e
                  WHERE e.org_id = x.org_id AND e.disabled_at IS NULL
                    AND (cardinality(e.events) = 0 OR 'assertion.expiring' = ANY (e.events)))
)
SELECT assertion_id, days_before FROM claimed;

-- name: TakePendingReminders :many
-- Claimed reminders whose (next) attempt is due and whose lease is free, leased to owner: rows an attempt claimed
-- and did not send (a dead worker's, once its lease ran out; the same owner's, a retry of the activity that
-- claimed them, at once), retries (a failed attempt frees the lease), and rows claimed before leases existed.
-- SKIP LOCKED: a row another sweep is taking at this moment is that sweep's.
UPDATE expiry_reminders r
SET claimed_by = sqlc.arg(owner)::text,
    claimed_until = clock_timestamp() + make_interval(secs => sqlc.arg(lease_seconds)::float8)
FROM (SELECT assertion_id, days_before FROM expiry_reminders
      WHERE state = 'CLAIMED' AND next_attempt_at <= sqlc.arg(now)::timestamptz
        AND (claimed_until IS NULL OR claimed_until < clock_timestamp() OR claimed_by = sqlc.arg(owner)::text)
      ORDER BY next_attempt_at
      LIMIT sqlc.arg(batch)::int
      FOR UPDATE SKIP LOCKED) p
WHERE r.assertion_id = p.assertion_id AND r.days_before = p.days_before
RETURNING r.assertion_id, r.days_before;

-- name: MarkReminderSent :execrows
-- Whoever holds the lease now: the message has left, so the row says so even if this sweep's lease ran out.
UPDATE expiry_reminders SET state = 'SENT', sent_at = sqlc.arg(now)::timestamptz, attempts = attempts + 1, last_error = NULL,
    claimed_until = NULL
WHERE assertion_id = $1 AND days_before = $2 AND state = 'CLAIMED';

-- name: MarkReminderUnsent :execrows
-- A failed attempt of the lease's owner: state FAILED or CANCELLED for good, or CLAIMED again from next_attempt_at
-- with the lease freed, so any sweep retries it.
UPDATE expiry_reminders SET state = sqlc.arg(state), attempts = attempts + 1, last_error = sqlc.arg(last_error),
    next_attempt_at = sqlc.arg(next_attempt_at)::timestamptz, claimed_until = NULL
WHERE assertion_id = $1 AND days_before = $2 AND state = 'CLAIMED' AND claimed_by = sqlc.arg(owner)::text;

-- name: GetReminder :one
SELECT * FROM expiry_reminders WHERE assertion_id = $1 AND days_before = $2;

-- name: ListAssertionReminders :many
SELECT * FROM expiry_reminders WHERE assertion_id = ANY(sqlc.arg(ids)::uuid[]) ORDER BY assertion_id, days_before DESC;

-- name: ReminderCounts :many
-- For `badged admin reminders status`: the reminders by state, the oldest pending attempt, the last one sent.
SELECT state, count(*) AS count, min(next_attempt_at)::timestamptz AS oldest_next_attempt,
       COALESCE(max(sent_at), 'epoch')::timestamptz AS last_sent -- epoch for states without sent_at
FROM expiry_reminders GROUP BY state ORDER BY state;

-- name: CountBadgesWithReminders :one
SELECT count(*) FROM badges WHERE expiry_reminders <> '{}' AND deleted_at IS NULL;

-- name: SetBadgeExpiryReminders :one
UPDATE badges SET expiry_reminders = sqlc.arg(days)::int[]
WHERE org_id = $1 AND id = $2
RETURNING *;
