package workflows

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/internal/errcode"
)

func runBatch(t *testing.T, env interface {
	ExecuteWorkflow(any, ...any)
	IsWorkflowCompleted() bool
	GetWorkflowError() error
	GetWorkflowResult(any) error
}, n int) BatchResult {
	t.Helper()
	env.ExecuteWorkflow(IssueBatch, IssueBatchInput{IssuanceID: uuid.New(), FromSeq: 0, ToSeq: n})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res BatchResult
	require.NoError(t, env.GetWorkflowResult(&res))
	return res
}

func TestIssueBatchHappyPath(t *testing.T) {
	env := newEnv(t)
	rs := refs(3)
	rec := mockPipeline(env, rs, nil)
	res := runBatch(t, env, 3)

	require.Equal(t, BatchResult{Finished: 3, ByState: map[string]int{"RECEIVED": 3}, FailedByCode: map[string]int{}}, res)
	for _, r := range rs {
		require.Equal(t, stepNames, rec.steps[r.AssertionID], "every step once, in order")
		require.Equal(t, activities.FinishInput{AssertionID: r.AssertionID}, rec.finished[r.AssertionID])
	}
	env.AssertNumberOfCalls(t, "LoadBatch", 1)
	for _, name := range []string{"CheckRecipient", "SignCredential", "AnchorCredential", "BakeBadge", "UploadArtifacts", "NotifyRecipient", "FinishAssertion"} {
		env.AssertNumberOfCalls(t, name, 3)
	}
}

func TestIssueBatchResume(t *testing.T) {
	env := newEnv(t)
	rs := refs(5)
	rs[0].Step = activities.StepSigned   // resumes at anchoring
	rs[1].Step = ""                      // not loaded with a step: starts from the beginning
	rs[2].Done = true                    // already has its final state
	rs[2].Step = activities.StepNotified // (and its step) – skipped
	rs[3].Step = activities.StepNotified // every step done, outcome not yet written
	rs[4].Step = activities.StepChecked
	rec := mockPipeline(env, rs, nil)
	res := runBatch(t, env, 5)

	require.Equal(t, stepNames[2:], rec.steps[rs[0].AssertionID])
	require.Equal(t, stepNames, rec.steps[rs[1].AssertionID])
	require.Empty(t, rec.steps[rs[2].AssertionID])
	require.NotContains(t, rec.finished, rs[2].AssertionID, "a done recipient is not finished again")
	require.Empty(t, rec.steps[rs[3].AssertionID])
	require.Contains(t, rec.finished, rs[3].AssertionID)
	require.Equal(t, stepNames[1:], rec.steps[rs[4].AssertionID])
	require.Equal(t, 5, res.Finished, "done recipients count as finished")
	require.Equal(t, map[string]int{"RECEIVED": 4}, res.ByState)
	env.AssertNumberOfCalls(t, "FinishAssertion", 4)
}

// TestIssueBatchStepFails fails each step in turn with a final error of a code: the recipient's outcome carries
// the code and the failing step, no later step runs, and the other recipients are unaffected.
func TestIssueBatchStepFails(t *testing.T) {
	cases := []struct {
		step      string
		code      errcode.Code
		wantState string
	}{
		{activities.StepChecked, errcode.DuplicateIssuance, "FAILED"},
		{activities.StepSigned, errcode.CredentialSigningFailed, "FAILED"},
		{activities.StepAnchored, errcode.BlockchainTxReverted, "FAILED"},
		{activities.StepBaked, errcode.BadgeImageBakingFailed, "FAILED"},
		{activities.StepUploaded, errcode.ArtifactUploadFailed, "FAILED"},
		{activities.StepNotified, errcode.RejectedEmail, "ISSUED"}, // the credential exists; it was not delivered
	}
	for i, c := range cases {
		t.Run(c.step, func(t *testing.T) {
			env := newEnv(t)
			rs := refs(2)
			bad := rs[0].AssertionID
			rec := mockPipeline(env, rs, func(step string, id uuid.UUID, _ int32) error {
				if id == bad && step == c.step {
					return temporal.NewNonRetryableApplicationError("step failed", string(c.code), nil)
				}
				return nil
			})
			res := runBatch(t, env, 2)

			require.Equal(t, activities.FinishInput{AssertionID: bad, ErrorCode: string(c.code), Stage: c.step}, rec.finished[bad])
			require.Equal(t, stepNames[:i+1], rec.steps[bad], "called once up to the failing step, nothing after")
			require.Equal(t, activities.FinishInput{AssertionID: rs[1].AssertionID}, rec.finished[rs[1].AssertionID])
			require.Equal(t, stepNames, rec.steps[rs[1].AssertionID])
			require.Equal(t, 2, res.Finished)
			require.Equal(t, map[string]int{string(c.code): 1}, res.FailedByCode)
			want := map[string]int{"RECEIVED": 1}
			want[c.wantState]++
			require.Equal(t, want, res.ByState)
		})
	}
}

// TestIssueBatchErrorsWithoutCode: what the workflow writes when a step fails with something that is not one of
// our coded ApplicationErrors.
func TestIssueBatchErrorsWithoutCode(t *testing.T) {
	cases := []struct {
		name      string
		err       error
		wantCode  errcode.Code
		wantCalls int // attempts of the failing step
	}{
		// The test environment does not time out a slow mock (After), so the step reports the timeout itself, as the
		// server would after StartToCloseTimeout; stepOptions retries it like any timeout.
		{"timeout", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil), errcode.InternalServerError, 10},
		{"heartbeat timeout", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil), errcode.InternalServerError, 10},
		{"foreign type", temporal.NewNonRetryableApplicationError("boom", "SomeLibraryError", nil), errcode.Unknown, 1},
		{"untyped", temporal.NewNonRetryableApplicationError("boom", "", nil), errcode.Unknown, 1},
		{"plain error", errors.New("boom"), errcode.Unknown, 10}, // retried by stepOptions until the test env's cap
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			rs := refs(1)
			rec := mockPipeline(env, rs, func(step string, _ uuid.UUID, _ int32) error {
				if step == activities.StepAnchored { // a regular activity: the test env caps its retries at 10
					return c.err
				}
				return nil
			})
			res := runBatch(t, env, 1)
			got := rec.finished[rs[0].AssertionID]
			require.Equal(t, string(c.wantCode), got.ErrorCode)
			require.Equal(t, activities.StepAnchored, got.Stage)
			require.Equal(t, map[string]int{"FAILED": 1}, res.ByState)
			env.AssertNumberOfCalls(t, "AnchorCredential", c.wantCalls)
			env.AssertNumberOfCalls(t, "BakeBadge", 0)
		})
	}
}

// TestIssueBatchRetriesWithNextRetryDelay: a retryable coded failure is retried after the delay the activity
// chose, and the recipient succeeds.
func TestIssueBatchRetriesWithNextRetryDelay(t *testing.T) {
	for _, succeedOn := range []int32{2, 3} {
		t.Run(fmt.Sprintf("attempt %d", succeedOn), func(t *testing.T) {
			env := newEnv(t)
			rs := refs(1)
			const delay = 7 * time.Second
			rec := mockPipeline(env, rs, func(step string, _ uuid.UUID, attempt int32) error {
				if step == activities.StepUploaded && attempt < succeedOn {
					return temporal.NewApplicationErrorWithOptions("s3 down", string(errcode.ArtifactUploadFailed),
						temporal.ApplicationErrorOptions{NextRetryDelay: delay})
				}
				return nil
			})
			start := env.Now()
			res := runBatch(t, env, 1)
			require.Equal(t, map[string]int{"RECEIVED": 1}, res.ByState)
			require.Equal(t, activities.FinishInput{AssertionID: rs[0].AssertionID}, rec.finished[rs[0].AssertionID])
			env.AssertNumberOfCalls(t, "UploadArtifacts", int(succeedOn))
			env.AssertNumberOfCalls(t, "NotifyRecipient", 1)
			elapsed := env.Now().Sub(start)
			require.GreaterOrEqual(t, elapsed, time.Duration(succeedOn-1)*delay, "NextRetryDelay honoured")
			require.Less(t, elapsed, time.Duration(succeedOn-1)*delay+time.Second, "not the workflow's own backoff")
		})
	}
}

func TestIssueBatchFinishFailureFailsBatch(t *testing.T) {
	env := newEnv(t)
	rs := refs(2)
	env.OnActivity(a.LoadBatch, mock.Anything, mock.Anything).Return(activities.LoadBatchResult{Recipients: rs}, nil)
	for _, step := range pipeline {
		env.OnActivity(step.run(a), mock.Anything, mock.Anything).Return(nil)
	}
	env.OnActivity(a.FinishAssertion, mock.Anything, mock.Anything).Return(activities.FinishResult{},
		temporal.NewNonRetryableApplicationError("db gone", "", nil))
	env.ExecuteWorkflow(IssueBatch, IssueBatchInput{IssuanceID: uuid.New(), ToSeq: 2})
	require.True(t, env.IsWorkflowCompleted())
	require.ErrorContains(t, env.GetWorkflowError(), "db gone")
}

func TestIssueBatchProgressQuery(t *testing.T) {
	env := newEnv(t)
	rs := refs(3)
	env.OnActivity(a.LoadBatch, mock.Anything, mock.Anything).Return(activities.LoadBatchResult{Recipients: rs}, nil)
	for _, step := range pipeline {
		call := env.OnActivity(step.run(a), mock.Anything, mock.Anything).Return(nil)
		if step.done == activities.StepBaked {
			call.After(time.Minute) // hold every recipient at baking for a while
		}
	}
	env.OnActivity(a.FinishAssertion, mock.Anything, mock.Anything).Return(activities.FinishResult{State: "RECEIVED"}, nil)
	var during BatchProgress
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(ProgressQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&during))
	}, 30*time.Second)
	runBatch(t, env, 3)
	require.Equal(t, 3, during.ByStep[activities.StepBaked], "in flight at baking: %v", during.ByStep)
	require.Zero(t, during.ByStep[activities.StepChecked])
}
