package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/workflows"
)

// StartWebhookDelivery starts the workflow of one webhook delivery; one that already ran (or runs) is left alone.
func (s Starter) StartWebhookDelivery(ctx context.Context, deliveryID uuid.UUID) error {
	var del db.GetWebhookDeliveryRow // for the summary only: a failed read leaves the ids
	if s.DB != nil {
		del, _ = s.DB.GetWebhookDelivery(ctx, deliveryID)
	}
	_, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.WebhookWorkflowID(deliveryID),
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		Memo:                     map[string]any{"deliveryId": deliveryID.String()},
		StaticSummary:            webhookSummary(deliveryID.String(), del),
		StaticDetails:            webhookDetails(deliveryID.String(), del),
	}, workflows.DeliverWebhook, activities.DeliverWebhookInput{DeliveryID: deliveryID})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &started) {
		return fmt.Errorf("start webhook delivery %s: %w", deliveryID, err)
	}
	return nil
}

// Redeliver sends a delivery's event again to the same endpoint, as a new delivery with its own attempts and
// the same event id (webhook-id), and starts it.
func Redeliver(ctx context.Context, d *db.DB, s Starter, deliveryID uuid.UUID) (db.WebhookDelivery, error) {
	del, err := d.CreateRedelivery(ctx, db.CreateRedeliveryParams{ID: uuid.New(), Of: deliveryID})
	if err != nil {
		return db.WebhookDelivery{}, err
	}
	return del, s.StartWebhookDelivery(ctx, del.ID)
}

// WebhookDispatcher turns outbox events into deliveries. The transactions that change state write events; every
// Interval it claims undispatched ones, creates one delivery per subscribed endpoint, commits, starts each
// delivery's workflow, then marks the event dispatched. A dispatcher that dies in between leaves the event
// undispatched; the next pass finds the same deliveries and workflow ids, so nothing is lost or sent twice by it.
// Any number of workers may dispatch at once (SKIP LOCKED, idempotent starts).
type WebhookDispatcher struct {
	DB        *db.DB
	Starter   Starter
	Log       *slog.Logger
	Interval  time.Duration // WEBHOOK_DISPATCH_INTERVAL: latency from commit to first attempt, at most this
	Retention time.Duration // WEBHOOK_RETENTION: finished events, deliveries and attempts older than this are deleted
}

// dispatchBatch is how many events one pass claims; a full batch is followed at once by the next.
const dispatchBatch = 100

// Run dispatches until ctx ends.
func (w WebhookDispatcher) Run(ctx context.Context) {
	t := time.NewTicker(w.Interval)
	defer t.Stop()
	lastPrune := time.Time{}
	for {
		n, err := w.Once(ctx)
		if err != nil && ctx.Err() == nil {
			w.Log.Warn("dispatch webhook events", "err", err)
		}
		if w.Retention > 0 && time.Since(lastPrune) > time.Hour {
			lastPrune = time.Now()
			if _, err := w.DB.DeleteOldWebhookEvents(ctx, time.Now().Add(-w.Retention)); err != nil && ctx.Err() == nil {
				w.Log.Warn("prune webhook events", "err", err)
			}
		}
		if n == dispatchBatch && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Once makes one pass and returns how many events it dispatched.
func (w WebhookDispatcher) Once(ctx context.Context) (int, error) {
	type claimed struct {
		event      string
		deliveries []uuid.UUID
	}
	var batch []claimed
	err := w.DB.InTx(ctx, func(q *db.Queries) error {
		evs, err := q.ClaimUndispatchedWebhookEvents(ctx, dispatchBatch)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if err := q.CreateDispatchedDeliveries(ctx, ev.ID); err != nil {
				return err
			}
			ids, err := q.ListPendingDeliveriesOfEvent(ctx, ev.ID)
			if err != nil {
				return err
			}
			batch = append(batch, claimed{ev.ID, ids})
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("claim webhook events: %w", err)
	}
	// Deliveries are committed before their workflows start, so an attempt always finds its row.
	for i, c := range batch {
		for _, id := range c.deliveries {
			if err := w.Starter.StartWebhookDelivery(ctx, id); err != nil {
				return i, err
			}
		}
		if err := w.DB.MarkWebhookEventDispatched(ctx, c.event); err != nil {
			return i, err
		}
	}
	return len(batch), nil
}
