package temporal

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// Reconciler heals orphaned issuances. The API commits an issuance as PROCESSING and then starts its workflow; a
// process that dies between the two leaves an issuance nothing would ever finish if the client never retries. Every
// Grace/2, the Reconciler starts the workflow of each PROCESSING issuance older than Grace whose start was never
// recorded and that has none. It also starts again the workflow of a PROCESSING issuance whose start was recorded
// but that Temporal no longer has: Temporal lost its data (the persistence-loss drill, docs/operators.md); the new
// run takes every recipient from the step Postgres says it reached. Starting is idempotent (the workflow id comes
// from the idempotency key), so any number of workers may reconcile at once.
type Reconciler struct {
	DB      *db.DB
	Starter Starter
	Log     *slog.Logger
	Grace   time.Duration // younger issuances are left to the request that committed them (ORPHAN_AFTER)
	// Batch is how many issuances of each kind one pass looks at (zero: 100); the rest wait for later passes. Each
	// started one costs a DescribeWorkflowExecution, so a pass over thousands running would load Temporal.
	Batch int

	// after is where the next pass's check of started issuances goes on (created_at, id); zero: from the oldest.
	// It wraps to the oldest after the newest, so every running issuance is looked at within a few passes.
	after struct {
		at time.Time
		id uuid.UUID
	}
}

// defaultReconcileBatch is Batch's default.
const defaultReconcileBatch = 100

// Run reconciles until ctx ends.
func (r *Reconciler) Run(ctx context.Context) {
	t := time.NewTicker(r.Grace / 2)
	defer t.Stop()
	for {
		if _, err := r.Once(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("reconcile issuances", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Once makes one pass and returns the ids of the issuances whose workflow it started.
func (r *Reconciler) Once(ctx context.Context) ([]string, error) {
	batch := r.Batch
	if batch <= 0 {
		batch = defaultReconcileBatch
	}
	rows, err := r.DB.Queries.ListProcessingIssuances(ctx, db.ListProcessingIssuancesParams{
		Before: time.Now().Add(-r.Grace), MaxRows: int32(batch)})
	if err != nil {
		return nil, err
	}
	lost, err := r.DB.Queries.ListStartedProcessingIssuances(ctx, db.ListStartedProcessingIssuancesParams{
		Before: time.Now().Add(-r.Grace), AfterCreatedAt: r.after.at, AfterID: r.after.id, MaxRows: int32(batch)})
	if err != nil {
		return nil, err
	}
	if len(lost) < batch {
		r.after.at, r.after.id = time.Time{}, uuid.Nil // the newest is reached: the next pass starts from the oldest
	} else {
		r.after.at, r.after.id = lost[len(lost)-1].CreatedAt, lost[len(lost)-1].ID
	}
	var started []string
	for _, iss := range lost {
		ok, err := StartOrphan(ctx, r.Starter, iss)
		if err != nil {
			return started, err
		}
		if ok {
			r.Log.Error("started again the workflow of an issuance Temporal no longer has: was its data lost?",
				"issuanceId", iss.ID, "workflowId", iss.WorkflowID, "committedAt", iss.CreatedAt)
			started = append(started, iss.ID.String())
		}
	}
	for _, iss := range rows {
		ok, err := StartOrphan(ctx, r.Starter, iss)
		if err != nil {
			return started, err
		}
		// Either way the workflow exists now: later passes (and replays of the POST) need not look again.
		if err := r.DB.MarkWorkflowStarted(ctx, iss.ID); err != nil {
			return started, err
		}
		if ok {
			r.Log.Warn("started the workflow of an orphaned issuance", "issuanceId", iss.ID, "workflowId", iss.WorkflowID,
				"committedAt", iss.CreatedAt)
			started = append(started, iss.ID.String())
		}
	}
	return started, nil
}

// StartOrphan starts the workflow of a PROCESSING issuance if it was never started, and says whether it did.
func StartOrphan(ctx context.Context, s Starter, iss db.Issuance) (bool, error) {
	if iss.ProcessingStatus != string(db.IssuanceProcessing) {
		return false, nil
	}
	exists, err := s.WorkflowExists(ctx, iss)
	if err != nil || exists {
		return false, err
	}
	return true, s.StartIssuance(ctx, iss)
}
