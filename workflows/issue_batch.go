package workflows

import (
	"errors"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/internal/errcode"
)

// RecipientConcurrency bounds the recipients of one batch in flight at once.
const RecipientConcurrency = 25

// IssueBatchInput selects recipients FromSeq <= seq < ToSeq of an issuance. BatchAnchor anchors their
// credentials together in one Merkle-batch transaction instead of one transaction each.
type IssueBatchInput struct {
	IssuanceID  uuid.UUID
	FromSeq     int
	ToSeq       int
	BatchAnchor bool
}

// BatchResult counts the batch's outcomes.
type BatchResult struct {
	Finished     int
	ByState      map[string]int
	FailedByCode map[string]int
}

// BatchProgress is the progress query's answer of a batch: recipients per step, and failures by code.
type BatchProgress struct {
	ByStep       map[string]int
	FailedByCode map[string]int
}

// pipeline is the ordered per-recipient chain; each entry runs once its predecessors have completed, and the
// step reached is recorded in Postgres by the activity itself, so a re-run skips what is done.
var pipeline = []struct {
	done  string // the step recorded when the activity completes
	run   func(*activities.Activities) any
	local bool // a short step: run as a local activity (see options.go)
}{
	{activities.StepChecked, func(*activities.Activities) any { return a.CheckRecipient }, true},
	{activities.StepSigned, func(*activities.Activities) any { return a.SignCredential }, true},
	{activities.StepAnchored, func(*activities.Activities) any { return a.AnchorCredential }, false},
	{activities.StepBaked, func(*activities.Activities) any { return a.BakeBadge }, true},
	{activities.StepUploaded, func(*activities.Activities) any { return a.UploadArtifacts }, true},
	{activities.StepNotified, func(*activities.Activities) any { return a.NotifyRecipient }, false},
}

// IssueBatch runs the pipeline check → sign → anchor → bake → upload → notify for each recipient of the batch,
// then records each recipient's outcome. A recipient's failure never fails the batch.
func IssueBatch(ctx workflow.Context, in IssueBatchInput) (BatchResult, error) {
	res := BatchResult{ByState: map[string]int{}, FailedByCode: map[string]int{}}
	prog := BatchProgress{ByStep: map[string]int{}, FailedByCode: res.FailedByCode}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (BatchProgress, error) { return prog, nil }); err != nil {
		return res, err
	}
	dctx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	var batch activities.LoadBatchResult
	if err := workflow.ExecuteLocalActivity(dctx, a.LoadBatch, activities.LoadBatchInput{
		IssuanceID: in.IssuanceID, FromSeq: in.FromSeq, ToSeq: in.ToSeq}).Get(ctx, &batch); err != nil {
		return res, err
	}
	// Each recipient runs its steps in phases; between phases the batch waits for all of them. Without batch
	// anchoring there is one phase with every step; with it, the credentials of the batch are signed first, then
	// anchored together, then baked, published and notified.
	states := make(map[uuid.UUID]*recipientRun, len(batch.Recipients))
	var pending []*recipientRun
	for _, r := range batch.Recipients {
		if r.Done {
			res.Finished++
			continue
		}
		run := &recipientRun{ref: r, finish: activities.FinishInput{AssertionID: r.AssertionID}}
		states[r.AssertionID] = run
		pending = append(pending, run)
	}
	anchorAt := stepIndex(activities.StepSigned) // index of the anchor step in pipeline
	if !in.BatchAnchor {
		runPhase(ctx, in.IssuanceID, pending, 0, len(pipeline), prog.ByStep)
	} else {
		runPhase(ctx, in.IssuanceID, pending, 0, anchorAt, prog.ByStep)
		prog.ByStep[activities.StepAnchored] += len(pending)
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, stepOptions), a.AnchorBatch,
			activities.AnchorBatchInput{IssuanceID: in.IssuanceID, FromSeq: in.FromSeq, ToSeq: in.ToSeq}).Get(ctx, nil)
		prog.ByStep[activities.StepAnchored] -= len(pending)
		for _, run := range pending {
			if err != nil && run.finish.ErrorCode == "" {
				run.finish.ErrorCode, run.finish.Stage = failureCode(err), activities.StepAnchored
			}
		}
		runPhase(ctx, in.IssuanceID, pending, anchorAt+1, len(pipeline), prog.ByStep)
	}

	// Record every outcome.
	sem := workflow.NewSemaphore(ctx, RecipientConcurrency)
	wg := workflow.NewWaitGroup(ctx)
	var fatal error
	lctx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	for _, run := range pending {
		if err := sem.Acquire(ctx, 1); err != nil {
			return res, err
		}
		wg.Add(1)
		workflow.Go(ctx, func(gctx workflow.Context) {
			defer wg.Done()
			defer sem.Release(1)
			var out activities.FinishResult
			if err := workflow.ExecuteLocalActivity(lctx, a.FinishAssertion, run.finish).Get(gctx, &out); err != nil {
				fatal = err
				return
			}
			res.Finished++
			res.ByState[out.State]++
			if out.ErrorCode != "" {
				res.FailedByCode[out.ErrorCode]++
			}
		})
	}
	wg.Wait(ctx)
	return res, fatal
}

// recipientRun is one recipient's progress through the batch: where it stands and, once a step failed, why.
type recipientRun struct {
	ref    activities.RecipientRef
	finish activities.FinishInput
}

// runPhase runs pipeline[from:to] for every recipient that has not failed, at most RecipientConcurrency at once,
// skipping the steps each one has already completed, and waits for all of them.
func runPhase(ctx workflow.Context, issuance uuid.UUID, runs []*recipientRun, from, to int, byStep map[string]int) {
	sctx := workflow.WithActivityOptions(ctx, stepOptions)
	lctx := workflow.WithLocalActivityOptions(ctx, localStepOptions)
	sem := workflow.NewSemaphore(ctx, RecipientConcurrency)
	wg := workflow.NewWaitGroup(ctx)
	for _, run := range runs {
		if run.finish.ErrorCode != "" {
			continue
		}
		if err := sem.Acquire(ctx, 1); err != nil {
			return // the workflow is being cancelled
		}
		wg.Add(1)
		workflow.Go(ctx, func(gctx workflow.Context) {
			defer wg.Done()
			defer sem.Release(1)
			in := activities.StepInput{AssertionID: run.ref.AssertionID, IssuanceID: issuance}
			for i := max(from, stepIndex(run.ref.Step)); i < to; i++ {
				step := pipeline[i]
				byStep[step.done]++
				var err error
				if step.local {
					err = workflow.ExecuteLocalActivity(lctx, step.run(a), in).Get(gctx, nil)
				} else {
					err = workflow.ExecuteActivity(sctx, step.run(a), in).Get(gctx, nil)
				}
				byStep[step.done]--
				if err != nil {
					run.finish.ErrorCode, run.finish.Stage = failureCode(err), step.done
					return
				}
			}
		})
	}
	wg.Wait(ctx)
}

// stepIndex is the index in pipeline of the first step not yet done.
func stepIndex(reached string) int {
	for i, step := range pipeline {
		if step.done == reached {
			return i + 1
		}
	}
	return 0
}

// failureCode is the assertion errorCode of a failed step: the ApplicationError type our activities set, or
// INTERNAL_SERVER_ERROR for a timeout (the step did not answer in time), or UNKNOWN.
func failureCode(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() != "" {
		for _, c := range errcode.All {
			if string(c) == appErr.Type() {
				return appErr.Type()
			}
		}
	}
	var timeoutErr *temporal.TimeoutError
	if errors.As(err, &timeoutErr) {
		return string(errcode.InternalServerError)
	}
	return string(errcode.Unknown)
}
