package workflows

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/internal/errcode"
)

// ChunkSize is the most recipients one step activity runs on: one round trip reads them, one statement records
// them, and a failure splits the chunk into the recipients that go on and those that wait for a retry.
const ChunkSize = 100

// step is one stage of the per-recipient pipeline sign → anchor → bake → publish → notify, after the check.
type step struct {
	done  string       // the assertion step recorded when the stage completes
	run   stepActivity // the activity method, on the nil *Activities the workflows name activities by
	local bool         // a short step: run as a local activity (see options.go)
	verb  string       // what the step does, for the activity's summary in the UI ("sign 1–100 of 500")
	stage string       // the Stage search attribute of a run whose earliest unfinished recipient waits for this step
}

// stepActivity is the signature of every step activity; Temporal names the activity after the method. An alias:
// the test environment's mocks must have the method's own (unnamed) func type.
type stepActivity = func(context.Context, activities.StepBatch) (activities.StepResult, error)

// pipeline is the ordered per-recipient chain. Each entry runs once its predecessors have completed for the
// recipient; the step reached is recorded in Postgres by the activity itself, so a re-run skips what is done.
var pipeline = []step{
	{activities.StepChecked, a.CheckRecipients, true, "check", StageSigning},
	{activities.StepSigned, a.SignCredentials, true, "sign", StageSigning},
	{activities.StepAnchored, a.AnchorCredentials, false, "anchor", StageAnchoring},
	{activities.StepBaked, a.BakeBadges, true, "bake", StageBaking},
	{activities.StepPublished, a.PublishCredentials, true, "publish", StagePublishing},
	{activities.StepNotified, a.NotifyRecipients, false, "notify", StageNotifying},
}

// runner moves the recipients of one workflow through the pipeline in groups. A group is at most ChunkSize
// recipients at the same step and attempt; each step is one activity for the whole group. Recipients that
// complete a step go on at once as a group; those that failed with a retryable code wait the delay their failure
// class gives (the retry policy file, decided in the activity) and try that step again as a group of their own;
// the others leave with their code. Every recipient ends with one recorded outcome.
type runner struct {
	issuance uuid.UUID
	progress BatchProgress // what the progress query answers
	result   BatchResult
	wg       workflow.WaitGroup
	fatal    error    // recording an outcome failed for good: the run as a whole fails
	view     *runView // the operator's view (operator.go); nil for runs started before operatorViewChange
}

func newRunner(ctx workflow.Context, issuance uuid.UUID, view *runView) *runner {
	res := activities.NewTally()
	return &runner{issuance: issuance, result: res, wg: workflow.NewWaitGroup(ctx), view: view,
		progress: BatchProgress{ByStep: map[string]int{}, FailedByCode: res.FailedByCode}}
}

// run starts every recipient not yet finished at the step after its last completed one, and waits until each has
// an outcome.
func (r *runner) run(ctx workflow.Context, refs []activities.RecipientRef) (BatchResult, error) {
	byStep := make([][]uuid.UUID, len(pipeline)+1)
	for _, ref := range refs {
		if ref.Done {
			r.result.Finished++
			continue
		}
		i := stepIndex(ref.Step)
		byStep[i] = append(byStep[i], ref.AssertionID)
		if r.view != nil {
			r.view.seq[ref.AssertionID] = ref.Seq
			r.view.at[i]++
		}
	}
	r.observe(ctx)
	for i, ids := range byStep {
		for chunk := range slices.Chunk(ids, ChunkSize) {
			r.spawn(ctx, func(ctx workflow.Context) { r.advance(ctx, i, 1, chunk) })
		}
	}
	r.wg.Wait(ctx)
	return r.result, r.fatal
}

func (r *runner) spawn(ctx workflow.Context, fn func(workflow.Context)) {
	r.wg.Add(1)
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer r.wg.Done()
		fn(ctx)
	})
}

// advance runs the group ids from pipeline[at] on, at the given attempt of that step.
func (r *runner) advance(ctx workflow.Context, at, attempt int, ids []uuid.UUID) {
	for ; at < len(pipeline); at, attempt = at+1, 1 {
		st := pipeline[at]
		r.progress.ByStep[st.done] += len(ids)
		res, err := r.execute(ctx, st, activities.StepBatch{IssuanceID: r.issuance, Assertions: ids, Attempt: attempt})
		r.progress.ByStep[st.done] -= len(ids)
		if err != nil {
			// The activity itself failed past its own retries (a timeout, a step that never answered): every
			// recipient of the group leaves with the code of that failure.
			r.finishAll(ctx, ids, failureCode(err), st.done)
			r.move(ctx, at, -1, len(ids))
			return
		}
		before := len(ids)
		r.noteFailures(ctx, st, attempt, res.Failed)
		ids = r.split(ctx, at, attempt, ids, res)
		if len(ids) == 0 {
			r.move(ctx, at, -1, before-r.waiting(res))
			return
		}
		r.move(ctx, at, at+1, len(ids))
		r.move(ctx, at, -1, before-len(ids)-r.waiting(res))
	}
	r.finishAll(ctx, ids, "", "")
	r.move(ctx, len(pipeline), -1, len(ids))
}

// waiting counts the recipients of res that wait to retry their step: they stay at it.
func (r *runner) waiting(res activities.StepResult) int {
	n := 0
	for _, f := range res.Failed {
		if f.Retry {
			n++
		}
	}
	return n
}

// split returns the recipients of ids that completed step at, starts the retries of those that may try again,
// and finishes the others with their code.
func (r *runner) split(ctx workflow.Context, at, attempt int, ids []uuid.UUID, res activities.StepResult) []uuid.UUID {
	if len(res.Failed) == 0 {
		return ids
	}
	failed := map[uuid.UUID]bool{}
	retries := map[time.Duration][]uuid.UUID{}
	var final []activities.Outcome
	for _, f := range res.Failed {
		failed[f.AssertionID] = true
		if f.Retry {
			retries[f.Delay] = append(retries[f.Delay], f.AssertionID)
		} else {
			final = append(final, activities.Outcome{AssertionID: f.AssertionID, ErrorCode: f.Code, Stage: pipeline[at].done})
		}
	}
	if len(final) > 0 {
		r.spawn(ctx, func(ctx workflow.Context) { r.finish(ctx, final) })
	}
	delays := make([]time.Duration, 0, len(retries))
	for d := range retries {
		delays = append(delays, d)
	}
	slices.Sort(delays) // map order is random; workflow code must be deterministic
	for _, d := range delays {
		group := retries[d]
		r.progress.ByStep[pipeline[at].done] += len(group)
		r.spawn(ctx, func(ctx workflow.Context) {
			err := workflow.Sleep(ctx, d)
			r.progress.ByStep[pipeline[at].done] -= len(group)
			if err != nil {
				return // the workflow is being cancelled
			}
			r.advance(ctx, at, attempt+1, group)
		})
	}
	return slices.DeleteFunc(ids, func(id uuid.UUID) bool { return failed[id] })
}

// execute runs one step activity for a group.
func (r *runner) execute(ctx workflow.Context, st step, in activities.StepBatch) (activities.StepResult, error) {
	var res activities.StepResult
	var f workflow.Future
	if st.local {
		o := localStepOptions
		o.Summary = r.summary(st, in.Assertions)
		f = workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, o), st.run, in)
	} else {
		o := stepOptions
		o.Summary = r.summary(st, in.Assertions)
		f = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, o), st.run, in)
	}
	err := f.Get(ctx, &res)
	return res, err
}

func (r *runner) finishAll(ctx workflow.Context, ids []uuid.UUID, code, stage string) {
	outcomes := make([]activities.Outcome, len(ids))
	for i, id := range ids {
		outcomes[i] = activities.Outcome{AssertionID: id, ErrorCode: code, Stage: stage}
	}
	r.finish(ctx, outcomes)
}

// finish records outcomes and counts them.
func (r *runner) finish(ctx workflow.Context, outcomes []activities.Outcome) {
	var out activities.Tally
	lctx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	err := workflow.ExecuteLocalActivity(lctx, a.FinishAssertions,
		activities.FinishBatch{IssuanceID: r.issuance, Outcomes: outcomes}).Get(ctx, &out)
	if err != nil {
		r.fatal = err
		return
	}
	r.result.Add(out)
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

// failureCode is the assertion errorCode of a step activity that failed as a whole: the ApplicationError type
// when it is an errorCode, INTERNAL_SERVER_ERROR for a timeout (the step did not answer in time), or UNKNOWN.
func failureCode(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() != "" {
		if slices.Contains(errcode.All, errcode.Code(appErr.Type())) {
			return appErr.Type()
		}
	}
	var timeoutErr *temporal.TimeoutError
	if errors.As(err, &timeoutErr) {
		return string(errcode.InternalServerError)
	}
	return string(errcode.Unknown)
}
