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

// IssueBatchInput selects recipients FromSeq <= seq < ToSeq of an issuance.
type IssueBatchInput struct {
	IssuanceID uuid.UUID
	FromSeq    int
	ToSeq      int
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

// IssueBatch runs the pipeline sign → anchor → bake → upload → notify for each recipient of the batch, then
// records each recipient's outcome. A recipient's failure never fails the batch.
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
	sem := workflow.NewSemaphore(ctx, RecipientConcurrency)
	wg := workflow.NewWaitGroup(ctx)
	var fatal error
	for _, r := range batch.Recipients {
		if r.Done {
			res.Finished++
			continue
		}
		if err := sem.Acquire(ctx, 1); err != nil {
			return res, err
		}
		wg.Add(1)
		workflow.Go(ctx, func(gctx workflow.Context) {
			defer wg.Done()
			defer sem.Release(1)
			out, err := runRecipient(gctx, r, prog.ByStep)
			if err != nil {
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

// runRecipient runs the remaining steps of one recipient and records the outcome. Only a failure to record the
// outcome itself is returned as an error.
func runRecipient(ctx workflow.Context, r activities.RecipientRef, byStep map[string]int) (activities.FinishResult, error) {
	sctx := workflow.WithActivityOptions(ctx, stepOptions)
	lctx := workflow.WithLocalActivityOptions(ctx, localStepOptions)
	in := activities.StepInput{AssertionID: r.AssertionID}
	finish := activities.FinishInput{AssertionID: r.AssertionID}
	reached := stepIndex(r.Step)
	for i, step := range pipeline {
		if i < reached {
			continue
		}
		byStep[step.done]++
		var err error
		if step.local {
			err = workflow.ExecuteLocalActivity(lctx, step.run(a), in).Get(ctx, nil)
		} else {
			err = workflow.ExecuteActivity(sctx, step.run(a), in).Get(ctx, nil)
		}
		byStep[step.done]--
		if err != nil {
			finish.ErrorCode, finish.Stage = failureCode(err), step.done
			break
		}
	}
	var out activities.FinishResult
	err := workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, localDBOptions), a.FinishAssertion, finish).Get(ctx, &out)
	return out, err
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
