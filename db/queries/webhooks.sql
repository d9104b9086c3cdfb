-- name: CreateWebhookEndpoint :one
INSERT INTO webhook_endpoints (id, org_id, url, secret, events) VALUES ($1, $2, $3, $4, sqlc.arg(events)::text[])
RETURNING *;

-- name: ListWebhookEndpoints :many
SELECT * FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at, id;

-- name: ListAllWebhookEndpoints :many
SELECT * FROM webhook_endpoints ORDER BY org_id, created_at, id;

-- name: GetWebhookEndpoint :one
SELECT * FROM webhook_endpoints WHERE org_id = $1 AND id = $2;

-- name: GetWebhookEndpointAnyOrg :one
SELECT * FROM webhook_endpoints WHERE id = $1;

-- name: DeleteWebhookEndpoint :execrows
DELETE FROM webhook_endpoints WHERE org_id = $1 AND id = $2;

-- name: DeleteWebhookEndpointAnyOrg :execrows
DELETE FROM webhook_endpoints WHERE id = $1;

-- name: CreateWebhookEvent :execrows
-- Records an event in the outbox, in the caller's transaction, when the organization has an enabled endpoint
-- subscribed to its type; zero rows means nobody listens.
INSERT INTO webhook_events (id, org_id, type, data)
SELECT sqlc.arg(id)::text, sqlc.arg(org_id)::uuid, sqlc.arg(type)::text, sqlc.arg(data)::jsonb
WHERE EXISTS (SELECT 1 FROM webhook_endpoints e
              WHERE e.org_id = sqlc.arg(org_id)::uuid AND e.disabled_at IS NULL
                AND (cardinality(e.events) = 0 OR sqlc.arg(type)::text = ANY (e.events)));

-- name: HasWebhookSubscriber :one
SELECT EXISTS (SELECT 1 FROM webhook_endpoints e
               WHERE e.org_id = sqlc.arg(org_id)::uuid AND e.disabled_at IS NULL
                 AND (cardinality(e.events) = 0 OR sqlc.arg(type)::text = ANY (e.events)));

-- name: GetWebhookEvent :one
SELECT * FROM webhook_events WHERE id = $1;

-- name: ClaimUndispatchedWebhookEvents :many
-- The dispatcher's next events, locked for its transaction; other dispatchers skip them.
SELECT * FROM webhook_events WHERE dispatched_at IS NULL ORDER BY created_at LIMIT sqlc.arg(max_rows)::int
FOR UPDATE SKIP LOCKED;

-- name: CreateDispatchedDeliveries :exec
-- One delivery per enabled, subscribed endpoint of the event's organization; existing ones are kept.
INSERT INTO webhook_deliveries (id, event_id, endpoint_id)
SELECT gen_random_uuid(), ev.id, e.id
FROM webhook_events ev JOIN webhook_endpoints e ON e.org_id = ev.org_id
WHERE ev.id = $1 AND e.disabled_at IS NULL AND (cardinality(e.events) = 0 OR ev.type = ANY (e.events))
ON CONFLICT (event_id, endpoint_id) WHERE NOT manual DO NOTHING;

-- name: ListPendingDeliveriesOfEvent :many
SELECT id FROM webhook_deliveries WHERE event_id = $1 AND NOT manual AND status = 'PENDING';

-- name: MarkWebhookEventDispatched :exec
UPDATE webhook_events SET dispatched_at = now() WHERE id = $1;

-- name: CreateRedelivery :one
-- A manual delivery of an earlier delivery's event to the same endpoint: the event id (webhook-id) is the same.
INSERT INTO webhook_deliveries (id, event_id, endpoint_id, redelivery_of, manual)
SELECT sqlc.arg(id)::uuid, d.event_id, d.endpoint_id, d.id, true FROM webhook_deliveries d WHERE d.id = sqlc.arg(of)::uuid
RETURNING *;

-- name: GetWebhookDelivery :one
SELECT d.*, ev.org_id, ev.type AS event_type FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
WHERE d.id = $1;

-- name: ListDeliveriesOfEvent :many
-- The latest delivery of an event to each endpoint.
SELECT DISTINCT ON (endpoint_id) * FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id, created_at DESC;

-- name: GetDeliveryToSend :one
-- Everything one attempt needs.
SELECT d.id, d.status, d.attempts, ev.id AS event_id, ev.type AS event_type, ev.data, ev.created_at AS event_created_at,
       e.id AS endpoint_id, e.org_id, e.url, e.secret, e.disabled_at
FROM webhook_deliveries d
JOIN webhook_events ev ON ev.id = d.event_id
JOIN webhook_endpoints e ON e.id = d.endpoint_id
WHERE d.id = $1;

-- name: RecordWebhookAttempt :exec
WITH a AS (
    INSERT INTO webhook_attempts (delivery_id, attempt, status_code, latency_ms, error)
    VALUES (sqlc.arg(delivery_id), sqlc.arg(attempt), sqlc.narg(status_code), sqlc.arg(latency_ms), sqlc.narg(error))
    ON CONFLICT (delivery_id, attempt) DO UPDATE
        SET status_code = excluded.status_code, latency_ms = excluded.latency_ms, error = excluded.error, at = now()
)
UPDATE webhook_deliveries SET attempts = greatest(attempts, sqlc.arg(attempt)), last_status_code = sqlc.narg(status_code),
    last_error = sqlc.narg(error)
WHERE id = sqlc.arg(delivery_id);

-- name: FinishWebhookDelivery :execrows
UPDATE webhook_deliveries SET status = sqlc.arg(status), completed_at = now()
WHERE id = sqlc.arg(id) AND status = 'PENDING';

-- name: MarkEndpointSucceeded :exec
UPDATE webhook_endpoints SET consecutive_failures = 0, failing_since = NULL WHERE id = $1;

-- name: MarkEndpointFailing :one
-- An attempt failed: the endpoint has been failing since its first failure after the last success.
UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()) WHERE id = $1 RETURNING *;

-- name: CountEndpointFailure :one
-- A delivery ran out of attempts.
UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, now())
WHERE id = $1 RETURNING *;

-- name: DisableWebhookEndpoint :execrows
UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = $2 WHERE id = $1 AND disabled_at IS NULL;

-- name: EnableWebhookEndpoint :one
UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL, consecutive_failures = 0, failing_since = NULL
WHERE id = $1 RETURNING *;

-- name: ListWebhookDeliveries :many
SELECT d.*, ev.type AS event_type FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
WHERE d.endpoint_id = $1 ORDER BY d.created_at DESC, d.id LIMIT sqlc.arg(max_rows)::int OFFSET sqlc.arg(skip)::int;

-- name: CountWebhookDeliveries :one
SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1;

-- name: ListWebhookAttempts :many
SELECT * FROM webhook_attempts WHERE delivery_id = ANY (sqlc.arg(ids)::uuid[]) ORDER BY delivery_id, attempt;

-- name: DeleteOldWebhookEvents :execrows
-- Retention: events (with their deliveries and attempts) older than the cutoff and no longer pending.
DELETE FROM webhook_events ev WHERE ev.created_at < sqlc.arg(before) AND ev.dispatched_at IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.status = 'PENDING');

-- name: CountIssuanceOutcomes :many
-- The issuance.completed/failed payload: recipients by state and errorCode.
SELECT state, coalesce(error_code, '')::text AS error_code, count(*)::int AS n
FROM assertions WHERE issuance_id = $1 GROUP BY state, error_code ORDER BY state, error_code;
