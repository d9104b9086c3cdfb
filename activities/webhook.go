package activities

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/internal/webhook"
)

// Webhooks configures webhook deliveries (cmd/badged: WEBHOOK_*).
type Webhooks struct {
	Sender *webhook.Sender // nil: deliveries fail (a worker without webhook configuration)
	// An endpoint is disabled, and its pending deliveries cancelled, when every attempt failed for DisableAfter, or
	// when DisableAfterFailures deliveries in a row ran out of attempts. Zero turns that rule off.
	DisableAfter         time.Duration
	DisableAfterFailures int
}

// DeliveryFailed is db.DeliveryFailed for the webhook workflow, which ends an abandoned delivery with it and does
// not import db.
const DeliveryFailed = db.DeliveryFailed

// ErrTypeWebhookAttempt types a failed attempt that the webhook class retries.
const ErrTypeWebhookAttempt = "WEBHOOK_ATTEMPT_FAILED"

// ErrTypeWebhookRefused types a delivery the URL policy refused (the URL, or the address its host resolved to):
// a non-retryable error, since no later attempt would be allowed either. The delivery is already FAILED when the
// activity returns it.
const ErrTypeWebhookRefused = "WEBHOOK_URL_REFUSED"

// DeliverWebhookInput names one delivery (one event to one endpoint).
type DeliverWebhookInput struct {
	DeliveryID uuid.UUID
}

// DeliverWebhookResult is how the delivery ended.
type DeliverWebhookResult struct {
	Status     db.DeliveryStatus // SUCCEEDED, FAILED or CANCELLED
	StatusCode int
}

// DeliverWebhook makes one attempt at a delivery: it signs the event's body with the endpoint's secret and posts it,
// records the attempt, and then either finishes the delivery (a 2xx answer; the endpoint disabled or deleted; the
// webhook class out of attempts) or fails with the class's NextRetryDelay, so Temporal runs the next attempt. The
// body and webhook-id come from the outbox row, so every attempt and redelivery of an event sends the same bytes
// under the same id; only webhook-timestamp and the signature change.
func (a *Activities) DeliverWebhook(ctx context.Context, in DeliverWebhookInput) (DeliverWebhookResult, error) {
	attempt := 1
	if activity.IsActivity(ctx) {
		attempt = int(activity.GetInfo(ctx).Attempt)
	}
	d, err := a.DB.GetDeliveryToSend(ctx, in.DeliveryID)
	if db.IsNotFound(err) {
		return DeliverWebhookResult{Status: db.DeliveryCancelled}, nil // its endpoint was deleted
	}
	if err != nil {
		return DeliverWebhookResult{}, fmt.Errorf("load webhook delivery %s: %w", in.DeliveryID, err)
	}
	log := a.Log.With("deliveryId", d.ID, "eventId", d.EventID, "endpointId", d.EndpointID, "orgId", d.OrgID, "attempt", attempt)
	if d.Status != string(db.DeliveryPending) {
		return DeliverWebhookResult{Status: db.DeliveryStatus(d.Status)}, nil // finished by an earlier attempt
	}
	if d.DisabledAt != nil {
		return a.finishDelivery(ctx, d.ID, db.DeliveryCancelled, 0)
	}
	if a.Webhooks.Sender == nil {
		return DeliverWebhookResult{}, errors.New("webhook deliveries are not configured on this worker")
	}
	body, err := webhook.Body(d.EventID, d.EventType, d.EventCreatedAt, d.Data)
	if err != nil {
		return DeliverWebhookResult{}, err
	}
	res := a.Webhooks.Sender.Send(ctx, d.Url, d.Secret, d.EventID, body)
	if ctx.Err() != nil {
		// The worker is stopping or the attempt timed out: nothing to record; Temporal runs the attempt again.
		return DeliverWebhookResult{}, ctx.Err()
	}
	a.Metrics.WebhookAttempt(attemptOutcome(res), res.Latency)
	if err := a.recordAttempt(ctx, d.ID, attempt, res); err != nil {
		return DeliverWebhookResult{}, err
	}
	if res.Err == nil {
		if err := a.DB.MarkEndpointSucceeded(ctx, d.EndpointID); err != nil {
			return DeliverWebhookResult{}, err
		}
		return a.finishDelivery(ctx, d.ID, db.DeliverySucceeded, res.StatusCode)
	}
	if res.Permanent() {
		return a.refuseDelivery(ctx, d.ID, d.EndpointID, res, log)
	}
	log.InfoContext(ctx, "webhook attempt failed", "status", res.StatusCode, "err", res.Err)

	ep, err := a.DB.MarkEndpointFailing(ctx, d.EndpointID)
	if err != nil {
		return DeliverWebhookResult{}, err
	}
	if w := a.Webhooks.DisableAfter; w > 0 && ep.FailingSince != nil && time.Since(*ep.FailingSince) >= w {
		reason := fmt.Sprintf("every delivery attempt failed for %s (since %s)", w, ep.FailingSince.UTC().Format(time.RFC3339))
		if err := a.disableEndpoint(ctx, ep.ID, "failing_too_long", reason); err != nil {
			return DeliverWebhookResult{}, err
		}
		return a.finishDelivery(ctx, d.ID, db.DeliveryCancelled, res.StatusCode)
	}
	if retry, delay := a.Policy.DecideClass(retrypolicy.WebhookClass, attempt); retry {
		return DeliverWebhookResult{}, temporal.NewApplicationErrorWithOptions(res.Err.Error(), ErrTypeWebhookAttempt,
			temporal.ApplicationErrorOptions{NextRetryDelay: delay})
	}
	// Out of attempts: the delivery failed; enough of those in a row disable the endpoint.
	out, err := a.finishDelivery(ctx, d.ID, db.DeliveryFailed, res.StatusCode)
	if err != nil {
		return out, err
	}
	return out, a.countDeliveryFailure(ctx, d.EndpointID)
}

// countDeliveryFailure counts a delivery that failed for good against its endpoint; DisableAfterFailures of them in
// a row disable it.
func (a *Activities) countDeliveryFailure(ctx context.Context, endpoint uuid.UUID) error {
	ep, err := a.DB.CountEndpointFailure(ctx, endpoint)
	if err != nil {
		return err
	}
	if m := a.Webhooks.DisableAfterFailures; m > 0 && int(ep.ConsecutiveFailures) >= m {
		reason := fmt.Sprintf("%d deliveries in a row failed after every retry", ep.ConsecutiveFailures)
		return a.disableEndpoint(ctx, ep.ID, "consecutive_failures", reason)
	}
	return nil
}

// refuseDelivery ends a delivery the URL policy refused: FAILED at once, no retry (the attempt's row says why), and
// a non-retryable ErrTypeWebhookRefused error so that Temporal's history shows it too. The endpoint:
//   - its URL refused (Attempt.Refused: an http:// URL after WEBHOOK_ALLOW_HTTP was turned off) can never be
//     delivered to, so it is disabled now, with the reason, and its pending deliveries are cancelled;
//   - its host resolving to a forbidden address (Attempt.Blocked) may be a DNS record that changes back, so the
//     delivery counts as one failed delivery, and DisableAfterFailures of them in a row disable it as for any
//     failure.
func (a *Activities) refuseDelivery(ctx context.Context, delivery, endpoint uuid.UUID, res webhook.Attempt, log *slog.Logger) (DeliverWebhookResult, error) {
	log.WarnContext(ctx, "webhook delivery refused by the URL policy", "err", res.Err)
	if _, err := a.DB.MarkEndpointFailing(ctx, endpoint); err != nil {
		return DeliverWebhookResult{}, err
	}
	if _, err := a.finishDelivery(ctx, delivery, db.DeliveryFailed, 0); err != nil {
		return DeliverWebhookResult{}, err
	}
	var err error
	if res.Refused {
		err = a.disableEndpoint(ctx, endpoint, "url_policy", "the URL is no longer allowed: "+res.Err.Error())
	} else {
		err = a.countDeliveryFailure(ctx, endpoint)
	}
	if err != nil {
		return DeliverWebhookResult{}, err
	}
	return DeliverWebhookResult{}, temporal.NewNonRetryableApplicationError(res.Err.Error(), ErrTypeWebhookRefused, nil)
}

// AbandonWebhookDelivery fails a delivery whose activity ended without finishing it (its ScheduleToClose bound).
func (a *Activities) AbandonWebhookDelivery(ctx context.Context, in DeliverWebhookInput) error {
	_, err := a.finishDelivery(ctx, in.DeliveryID, db.DeliveryFailed, 0)
	return err
}

func (a *Activities) recordAttempt(ctx context.Context, id uuid.UUID, attempt int, res webhook.Attempt) error {
	p := db.RecordWebhookAttemptParams{DeliveryID: id, Attempt: int32(attempt), LatencyMs: int32(res.Latency.Milliseconds())}
	if res.StatusCode != 0 {
		code := int32(res.StatusCode)
		p.StatusCode = &code
	}
	if res.Err != nil {
		msg := res.Err.Error()
		if len(msg) > 500 {
			msg = msg[:500]
		}
		p.Error = &msg
	}
	if err := a.DB.RecordWebhookAttempt(ctx, p); err != nil {
		return fmt.Errorf("record webhook attempt: %w", err)
	}
	return nil
}

func (a *Activities) finishDelivery(ctx context.Context, id uuid.UUID, status db.DeliveryStatus, code int) (DeliverWebhookResult, error) {
	n, err := a.DB.FinishWebhookDelivery(ctx, db.FinishWebhookDeliveryParams{ID: id, Status: string(status)})
	if err != nil {
		return DeliverWebhookResult{}, fmt.Errorf("finish webhook delivery: %w", err)
	}
	if n > 0 {
		a.Metrics.WebhookDelivery(string(status))
	}
	return DeliverWebhookResult{Status: status, StatusCode: code}, nil
}

// disableEndpoint stops deliveries to an endpoint that keeps failing: the reason shows in its listing, the log
// says it, and badged_webhook_endpoints_disabled_total counts it.
func (a *Activities) disableEndpoint(ctx context.Context, id uuid.UUID, kind, reason string) error {
	n, err := a.DB.DisableWebhookEndpoint(ctx, db.DisableWebhookEndpointParams{ID: id, DisabledReason: &reason})
	if err != nil {
		return fmt.Errorf("disable webhook endpoint: %w", err)
	}
	if n > 0 {
		a.Metrics.WebhookEndpointDisabled(kind)
		a.Log.WarnContext(ctx, "webhook endpoint disabled", "endpointId", id, "reason", reason)
	}
	return nil
}

func attemptOutcome(r webhook.Attempt) string {
	switch {
	case r.Err == nil:
		return metrics.WebhookSuccess
	case r.Permanent():
		return metrics.WebhookBlocked
	case r.StatusCode != 0:
		return metrics.WebhookHTTPError
	}
	return metrics.WebhookNetworkError
}
