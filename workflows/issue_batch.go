package workflows

import (
	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// IssueBatchInput selects recipients FromSeq <= seq < ToSeq of an issuance.
type IssueBatchInput struct {
	IssuanceID uuid.UUID
	FromSeq    int
	ToSeq      int
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
	return runLoaded(ctx, in.IssuanceID, a.LoadBatch,
		activities.LoadBatchInput{IssuanceID: in.IssuanceID, FromSeq: in.FromSeq, ToSeq: in.ToSeq})
}

// runLoaded answers the progress query, lists the recipients with load (a local activity taking loadInput), and
// runs them through the pipeline: the body of IssueBatch and RedriveIssuance.
func runLoaded(ctx workflow.Context, issuance uuid.UUID, load, loadInput any) (BatchResult, error) {
	r := newRunner(ctx, issuance)
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (BatchProgress, error) { return r.progress, nil }); err != nil {
		return r.result, err
	}
	var batch activities.LoadBatchResult
	lctx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	if err := workflow.ExecuteLocalActivity(lctx, load, loadInput).Get(ctx, &batch); err != nil {
		return r.result, err
	}
	return r.run(ctx, batch.Recipients)
}
