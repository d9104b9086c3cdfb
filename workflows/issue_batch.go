package workflows

import (
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// IssueBatchInput selects recipients FromSeq <= seq < ToSeq of an issuance.
type IssueBatchInput struct {
	IssuanceID uuid.UUID
	FromSeq    int
	ToSeq      int
	Total      int // recipients of the issuance, for the operator's summaries; 0 in batches started before them
}

// BatchResult counts the batch's outcomes.
type BatchResult = activities.Tally

// BatchProgress is the progress query's answer of a batch: recipients per step (running it or waiting to retry
// it), and failures by code.
type BatchProgress struct {
	ByStep       map[string]int
	FailedByCode map[string]int
}

// IssueBatch runs the pipeline check → sign → anchor → bake → publish → notify for each recipient of the batch,
// chunk by chunk (pipeline.go), and records each recipient's outcome. A recipient's failure never fails the batch.
func IssueBatch(ctx workflow.Context, in IssueBatchInput) (BatchResult, error) {
	var view *runView
	if workflow.GetVersion(ctx, operatorViewChange, workflow.DefaultVersion, 1) == 1 {
		view = newRunView(fmt.Sprintf("Recipients %s–%s of issuance %s", Count(in.FromSeq+1), Count(in.ToSeq), in.IssuanceID),
			in.Total)
	}
	return runLoaded(ctx, in.IssuanceID, a.LoadBatch,
		activities.LoadBatchInput{IssuanceID: in.IssuanceID, FromSeq: in.FromSeq, ToSeq: in.ToSeq}, view)
}

// runLoaded answers the progress query, lists the recipients with load (a local activity taking loadInput), and
// runs them through the pipeline: the body of IssueBatch and RedriveIssuance.
func runLoaded(ctx workflow.Context, issuance uuid.UUID, load, loadInput any, view *runView) (BatchResult, error) {
	r := newRunner(ctx, issuance, view)
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (BatchProgress, error) { return r.progress, nil }); err != nil {
		return r.result, err
	}
	var batch activities.LoadBatchResult
	lctx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	if err := workflow.ExecuteLocalActivity(lctx, load, loadInput).Get(ctx, &batch); err != nil {
		return r.result, err
	}
	res, err := r.run(ctx, batch.Recipients)
	r.done(ctx)
	return res, err
}
