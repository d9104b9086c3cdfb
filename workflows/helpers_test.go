package workflows

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
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

// stepName is the pipeline step of each mocked activity, in pipeline order.
var stepNames = []string{activities.StepChecked, activities.StepSigned, activities.StepAnchored, activities.StepBaked,
	activities.StepUploaded, activities.StepNotified}

// pipelineRecorder mocks the six steps and FinishAssertion, and records what each recipient went through.
type pipelineRecorder struct {
	mu       sync.Mutex
	steps    map[uuid.UUID][]string               // steps called, in order (one entry per attempt)
	finished map[uuid.UUID]activities.FinishInput // FinishAssertion inputs
	finishes int
	// errFor decides a step's outcome; nil means every step succeeds.
	errFor func(step string, id uuid.UUID, attempt int32) error
}

func mockPipeline(env *testsuite.TestWorkflowEnvironment, recipients []activities.RecipientRef,
	errFor func(step string, id uuid.UUID, attempt int32) error) *pipelineRecorder {
	r := &pipelineRecorder{steps: map[uuid.UUID][]string{}, finished: map[uuid.UUID]activities.FinishInput{}, errFor: errFor}
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
	for i, step := range pipeline {
		name := stepNames[i]
		if step.done != name {
			panic("stepNames is out of order with pipeline")
		}
		env.OnActivity(step.run(a), mock.Anything, mock.Anything).Return(
			func(ctx context.Context, in activities.StepInput) error {
				r.mu.Lock()
				r.steps[in.AssertionID] = append(r.steps[in.AssertionID], name)
				r.mu.Unlock()
				if r.errFor == nil {
					return nil
				}
				return r.errFor(name, in.AssertionID, activity.GetInfo(ctx).Attempt)
			}).Maybe()
	}
	env.OnActivity(a.FinishAssertion, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FinishInput) (activities.FinishResult, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.finished[in.AssertionID] = in
			r.finishes++
			return activities.FinishResult{State: stateOf(in), ErrorCode: in.ErrorCode}, nil
		}).Maybe()
	return r
}

// stateOf is FinishAssertion's rule for a v3 issuance (the activity's own tests check it against Postgres).
func stateOf(in activities.FinishInput) string {
	switch {
	case in.ErrorCode == "":
		return "RECEIVED"
	case in.Stage == activities.StepNotified:
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
