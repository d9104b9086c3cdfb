package workflows

import (
	"errors"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// WebhookWorkflowID is the workflow of one delivery. The dispatcher's deliveries are unique per (event,
// endpoint), so a dispatcher that starts them twice (it died before recording the first start) finds the same
// workflow.
func WebhookWorkflowID(deliveryID uuid.UUID) string { return "webhook/" + deliveryID.String() }

// webhookOptions run delivery attempts. The activity decides retries of its own failures from the retry table's
// webhook class (NextRetryDelay, and FAILED after its maximumAttempts); this policy governs only what it cannot
// classify, a worker that died mid-attempt (noticed after HeartbeatTimeout: the worker heartbeats every running
// activity) or a database error. StartToClose covers WEBHOOK_TIMEOUT (at most 30s) with room for the bookkeeping;
// ScheduleToClose bounds the delivery well past the webhook class's ~24h schedule.
var webhookOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    time.Minute,
	HeartbeatTimeout:       10 * time.Second,
	ScheduleToCloseTimeout: 72 * time.Hour,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    5 * time.Minute,
	},
}

// refusedDeliveryChange versions the handling of ErrTypeWebhookRefused: runs from before it took the abandon path
// for every activity error.
const refusedDeliveryChange = "webhook-refused-is-final"

// DeliverWebhook delivers one event to one endpoint, at least once, on its own schedule: issuance workflows only
// write the event to the outbox, so no issuance ever waits for a receiver.
func DeliverWebhook(ctx workflow.Context, in activities.DeliverWebhookInput) (activities.DeliverWebhookResult, error) {
	var res activities.DeliverWebhookResult
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, webhookOptions), a.DeliverWebhook, in).Get(ctx, &res)
	if err == nil {
		return res, nil
	}
	var refused *temporal.ApplicationError
	if errors.As(err, &refused) && refused.Type() == activities.ErrTypeWebhookRefused &&
		workflow.GetVersion(ctx, refusedDeliveryChange, workflow.DefaultVersion, 1) == 1 {
		// The URL policy refused it: the activity recorded the attempt and finished the delivery FAILED itself,
		// so the delivery ends like one out of attempts (the refusal stays in the history's activity failure).
		workflow.GetLogger(ctx).Warn("webhook delivery refused by the URL policy", "deliveryId", in.DeliveryID, "error", err)
		return activities.DeliverWebhookResult{Status: activities.DeliveryFailed}, nil
	}
	// The attempts ran out of time without the activity finishing the delivery: record it as FAILED.
	workflow.GetLogger(ctx).Error("webhook delivery abandoned", "deliveryId", in.DeliveryID, "error", err)
	lctx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	if ferr := workflow.ExecuteLocalActivity(lctx, a.AbandonWebhookDelivery, in).Get(ctx, nil); ferr != nil {
		return res, ferr
	}
	return activities.DeliverWebhookResult{Status: activities.DeliveryFailed}, err
}
