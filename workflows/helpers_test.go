package workflows

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/badged/badged/activities"
)

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	// a is a nil *Activities: the mocks below replace every method that would touch its fields.
	env.RegisterActivity(a)
	env.RegisterWorkflow(IssueBatch)
	t.Cleanup(func() { env.AssertExpectations(t) })
	return env
}

// stepNames is the pipeline step of each mocked activity, in pipeline order.
var stepNames = []string{activities.StepChecked, activities.StepSigned, activities.StepAnchored, activities.StepBaked,
	activities.StepPublished, activities.StepNotified}

// activityNames are the registered names of the step activities, in pipeline order.
var activityNames = []string{"CheckRecipients", "SignCredentials", "AnchorCredentials", "BakeBadges",
	"PublishCredentials", "NotifyRecipients"}

// outcomeFunc decides one recipient's attempt at a step: nil passes, a failure is reported as the activity would.
type outcomeFunc func(step string, id uuid.UUID, attempt int) *activities.StepFailure

// pipelineRecorder mocks the six step activities and FinishAssertions, and records what each recipient went
// through.
type pipelineRecorder struct {
	mu       sync.Mutex
	steps    map[uuid.UUID][]string             // steps called, in order (one entry per attempt)
	at       map[uuid.UUID]map[string]time.Time // workflow time of each recipient's last call of a step
	finished map[uuid.UUID]activities.Outcome   // FinishAssertions inputs
	finishes int                                // FinishAssertions calls
	chunks   map[string][]int                   // recipients per call, by step
}

// mockOption changes how one step's mock answers.
type mockOption func(step string, call *testsuite.MockCallWrapper, fn any) (any, bool)

// holdAt makes the step's activity take d of workflow time.
func holdAt(at string, d time.Duration) mockOption {
	return func(step string, call *testsuite.MockCallWrapper, fn any) (any, bool) {
		if step == at {
			call.After(d)
		}
		return fn, false
	}
}

// failActivity makes the step's activity itself fail with err, every time.
func failActivity(at string, err error) mockOption {
	return func(step string, _ *testsuite.MockCallWrapper, fn any) (any, bool) {
		if step == at {
			return func(context.Context, activities.StepBatch) (activities.StepResult, error) {
				return activities.StepResult{}, err
			}, true
		}
		return fn, false
	}
}

func mockPipeline(env *testsuite.TestWorkflowEnvironment, recipients []activities.RecipientRef, decide outcomeFunc,
	opts ...mockOption) *pipelineRecorder {
	r := &pipelineRecorder{steps: map[uuid.UUID][]string{}, at: map[uuid.UUID]map[string]time.Time{},
		finished: map[uuid.UUID]activities.Outcome{}, chunks: map[string][]int{}}
	if recipients != nil {
		env.OnActivity(a.LoadBatch, mock.Anything, mock.Anything).Return(
			func(_ context.Context, in activities.LoadBatchInput) (activities.LoadBatchResult, error) {
				var out activities.LoadBatchResult
				for _, rc := range recipients {
					if rc.Seq >= in.FromSeq && rc.Seq < in.ToSeq {
						out.Recipients = append(out.Recipients, rc)
					}
				}
				return out, nil
			})
	}
	for i, st := range pipeline {
		name := stepNames[i]
		if st.done != name {
			panic("stepNames is out of order with pipeline")
		}
		var fn any = func(_ context.Context, in activities.StepBatch) (activities.StepResult, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.chunks[name] = append(r.chunks[name], len(in.Assertions))
			var res activities.StepResult
			for _, id := range in.Assertions {
				r.steps[id] = append(r.steps[id], name)
				if r.at[id] == nil {
					r.at[id] = map[string]time.Time{}
				}
				r.at[id][name] = env.Now()
				if decide == nil {
					continue
				}
				if f := decide(name, id, in.Attempt); f != nil {
					f.AssertionID = id
					res.Failed = append(res.Failed, *f)
				}
			}
			return res, nil
		}
		call := env.OnActivity(st.run, mock.Anything, mock.Anything)
		for _, o := range opts {
			if alt, replaced := o(name, call, fn); replaced {
				fn = alt
			}
		}
		call.Return(fn).Maybe()
	}
	env.OnActivity(a.FinishAssertions, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FinishBatch) (activities.Tally, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.finishes++
			out := activities.NewTally()
			for _, o := range in.Outcomes {
				r.finished[o.AssertionID] = o
				out.Count(stateOf(o), o.ErrorCode, 1)
			}
			return out, nil
		}).Maybe()
	return r
}

// stateOf is FinishAssertions' rule for a v3 issuance (the activity's own tests check it against Postgres).
func stateOf(o activities.Outcome) string {
	switch {
	case o.ErrorCode == "":
		return "RECEIVED"
	case o.Stage == activities.StepNotified:
		return "ISSUED"
	default:
		return "FAILED"
	}
}

func refs(n int) []activities.RecipientRef {
	out := make([]activities.RecipientRef, n)
	for i := range out {
		out[i] = activities.RecipientRef{AssertionID: uuid.New(), Seq: i, Step: activities.StepPending}
	}
	return out
}
