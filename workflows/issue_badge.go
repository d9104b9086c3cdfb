package workflows

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// Fan-out limits. A batch runs its recipients in chunks of ChunkSize, one activity per step and chunk, so a batch
// of 500 makes about 5 × 7 activities and a few hundred events in its child's history, far below Temporal's limits
// (DESIGN.md "Pitfalls") even when failures split chunks; the parent holds a few events per child. Batches bound
// the recipients in flight: with anchor and notify waiting on outside systems, a few thousand keep both cores busy.
const (
	BatchSize            = 500
	MaxConcurrentBatches = 4
)

// Query and search-attribute names.
const (
	ProgressQuery = "progress"
)

// IssueBadgeInput starts the workflow of one issuance. It carries ids only.
type IssueBadgeInput struct {
	IssuanceID     uuid.UUID
	OrgID          uuid.UUID
	BadgeID        uuid.UUID
	APIVersion     int
	RecipientCount int
	// RedriveWindow is how long the workflow stays open for its redrive Update after its pipeline left redrivable
	// failures (redrive_update.go); 0 completes at once, as runs started before redriveUpdateChange do. In the
	// input, not the worker's configuration, so a replay decides alike.
	RedriveWindow time.Duration
}

// IssueBadgeResult is the outcome summary, also what the progress query answers at the end.
type IssueBadgeResult = Progress

// Progress is the progress query's answer: recipients by final state and failure code, and the batches that run.
type Progress struct {
	Total int
	activities.Tally
	RunningBatches []string // child workflow ids
}

// IssueBadge runs one issuance: children of BatchSize recipients each, at most MaxConcurrentBatches at a time,
// then marks the issuance COMPLETED. It fails (and marks the issuance FAILED) only when processing as a whole
// fails; a recipient's failure is that recipient's outcome.
func IssueBadge(ctx workflow.Context, in IssueBadgeInput) (IssueBadgeResult, error) {
	log := workflow.GetLogger(ctx)
	p := Progress{Total: in.RecipientCount, Tally: activities.NewTally()}
	running := map[string]bool{}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (Progress, error) {
		out := p
		out.RunningBatches = slices.Sorted(maps.Keys(running))
		return out, nil
	}); err != nil {
		return p, err
	}
	log.Info("issuance started", "issuanceId", in.IssuanceID, "orgId", in.OrgID, "recipients", in.RecipientCount)
	view := workflow.GetVersion(ctx, operatorViewChange, workflow.DefaultVersion, 1) == 1
	// The redrive Update is registered from the start, so an early one is refused with its reason (still running)
	// rather than as an unknown Update.
	var rd *redriveState
	if workflow.GetVersion(ctx, redriveUpdateChange, workflow.DefaultVersion, 1) == 1 {
		rd = &redriveState{}
	}
	title := "Issuance " + in.IssuanceID.String()
	batches := (in.RecipientCount + BatchSize - 1) / BatchSize
	// observe tells the operator where the issuance is: its search attributes (once per stage and per batch) and
	// its current details.
	lastStage := StageAccepted // as the starter sets it
	observe := func(stage string) {
		if !view {
			return
		}
		newStage := stage != lastStage
		lastStage = stage
		note := ""
		if rd != nil {
			note = rd.details(stage)
		}
		workflow.SetCurrentDetails(ctx, progressDetails(title, stage, in.RecipientCount, p.Tally,
			slices.Sorted(maps.Keys(running)))+note)
		if err := upsertProgress(ctx, stage, newStage, p.Tally); err != nil {
			log.Warn("upsert search attributes", "error", err)
		}
	}
	if rd != nil {
		if err := workflow.SetUpdateHandlerWithOptions(ctx, RedriveUpdate,
			func(ctx workflow.Context) (activities.RedriveResult, error) { return rd.handle(ctx, in, &p, observe) },
			workflow.UpdateHandlerOptions{Validator: func(workflow.Context) error { return rd.refusal() },
				// Shown by the UI beside the Update's name (answered from memory: no command, no replay concern).
				Description: "Re-drive the FAILED recipients whose errorCode is retryable (no input); refused, with the reason, " +
					"while the pipeline or a re-drive runs or when nothing is retryable"},
		); err != nil {
			return p, err
		}
	}
	observe(StageSigning)

	var batchErrs []error // every failed batch's error, in the order they failed
	sem := workflow.NewSemaphore(ctx, MaxConcurrentBatches)
	wg := workflow.NewWaitGroup(ctx)
	for from := 0; from < in.RecipientCount; from += BatchSize {
		if err := sem.Acquire(ctx, 1); err != nil {
			return p, err
		}
		batch := IssueBatchInput{IssuanceID: in.IssuanceID, FromSeq: from, ToSeq: min(from+BatchSize, in.RecipientCount)}
		parentID := workflow.GetInfo(ctx).WorkflowExecution.ID
		childID := fmt.Sprintf("%s/batch-%05d", parentID, from/BatchSize)
		// Batches carry the issuance's search attributes, so a search by IssuanceId in the UI finds them too.
		co := workflow.ChildWorkflowOptions{WorkflowID: childID, TypedSearchAttributes: workflow.GetTypedSearchAttributes(ctx)}
		if view {
			batch.Total = in.RecipientCount
			co.StaticSummary = batchSummary(from/BatchSize+1, batches, batch, in.RecipientCount)
			co.StaticDetails = batchDetails(parentID, batch)
		}
		cctx := workflow.WithChildOptions(ctx, co)
		running[childID] = true
		wg.Add(1)
		workflow.Go(ctx, func(gctx workflow.Context) {
			defer wg.Done()
			defer sem.Release(1)
			var res BatchResult
			err := workflow.ExecuteChildWorkflow(cctx, IssueBatch, batch).Get(gctx, &res)
			delete(running, childID)
			if err != nil {
				log.Error("batch failed", "batch", childID, "error", err)
				batchErrs = append(batchErrs, fmt.Errorf("%s: %w", childID, err))
				return
			}
			p.Add(res)
			observe(StageSigning)
		})
	}
	wg.Wait(ctx)
	runErr := errors.Join(batchErrs...)
	// A run that may wait for a re-drive says "done" only once it stops waiting.
	mayWait := rd != nil && in.RedriveWindow > 0 && runErr == nil && p.ByState[failedState] > 0
	if !mayWait {
		observe(StageDone)
	}

	done := activities.CompleteIssuanceInput{IssuanceID: in.IssuanceID}
	if runErr != nil {
		done.Failure = runErr.Error()
	}
	actx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	if err := workflow.ExecuteLocalActivity(actx, a.CompleteIssuance, done).Get(ctx, nil); err != nil {
		return p, err
	}
	if runErr != nil {
		log.Info("issuance finished", "issuanceId", in.IssuanceID, "byState", p.ByState, "failedByCode", p.FailedByCode)
		return p, runErr
	}
	if mayWait {
		if err := rd.read(ctx, in, &p); err != nil {
			return p, err
		}
		if err := rd.await(ctx, in.RedriveWindow, observe); err != nil {
			return p, err
		}
		observe(StageDone)
	}
	log.Info("issuance finished", "issuanceId", in.IssuanceID, "byState", p.ByState, "failedByCode", p.FailedByCode)
	return p, nil
}

// a is used only for its method values: workflows name activities by typed reference, never by string.
var a *activities.Activities
