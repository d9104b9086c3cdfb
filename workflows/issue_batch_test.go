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
	"go.temporal.io/sdk/testsuite"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/internal/errcode"
)

func runBatch(t *testing.T, env *testsuite.TestWorkflowEnvironment, n int) BatchResult {
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
		require.Equal(t, activities.Outcome{AssertionID: r.AssertionID}, rec.finished[r.AssertionID])
	}
	env.AssertNumberOfCalls(t, "LoadBatch", 1)
	for _, name := range append(activityNames, "FinishAssertions") {
		env.AssertNumberOfCalls(t, name, 1) // the three recipients are one chunk
	}
}

// A batch runs in chunks of at most ChunkSize recipients, one activity per step and chunk.
func TestIssueBatchChunks(t *testing.T) {
	env := newEnv(t)
	n := 2*ChunkSize + 7
	rec := mockPipeline(env, refs(n), nil)
	res := runBatch(t, env, n)
	require.Equal(t, map[string]int{"RECEIVED": n}, res.ByState)
	for _, name := range stepNames {
		require.ElementsMatch(t, []int{ChunkSize, ChunkSize, 7}, rec.chunks[name], "step %s", name)
	}
	require.Len(t, rec.finished, n)
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
	require.Len(t, rec.finished, 4)
}

// TestIssueBatchStepFails fails each step in turn for one recipient with a final code: its outcome carries the
// code and the failing step, no later step runs for it, and the other recipient of its chunk is unaffected.
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
		{activities.StepPublished, errcode.ArtifactUploadFailed, "FAILED"},
		{activities.StepNotified, errcode.RejectedEmail, "ISSUED"}, // the credential exists; it was not delivered
	}
	for i, c := range cases {
		t.Run(c.step, func(t *testing.T) {
			env := newEnv(t)
			rs := refs(2)
			bad := rs[0].AssertionID
			rec := mockPipeline(env, rs, func(step string, id uuid.UUID, _ int) *activities.StepFailure {
				if id == bad && step == c.step {
					return &activities.StepFailure{Code: string(c.code)}
				}
				return nil
			})
			res := runBatch(t, env, 2)

			require.Equal(t, activities.Outcome{AssertionID: bad, ErrorCode: string(c.code), Stage: c.step}, rec.finished[bad])
			require.Equal(t, stepNames[:i+1], rec.steps[bad], "called once up to the failing step, nothing after")
			require.Equal(t, activities.Outcome{AssertionID: rs[1].AssertionID}, rec.finished[rs[1].AssertionID])
			require.Equal(t, stepNames, rec.steps[rs[1].AssertionID])
			require.Equal(t, 2, res.Finished)
			require.Equal(t, map[string]int{string(c.code): 1}, res.FailedByCode)
			want := map[string]int{"RECEIVED": 1}
			want[c.wantState]++
			require.Equal(t, want, res.ByState)
		})
	}
}

// TestIssueBatchActivityFails: what the workflow writes when a step activity itself fails (a timeout, an error
// that is not a recipient's outcome): every recipient of the chunk leaves at that step with the failure's code.
func TestIssueBatchActivityFails(t *testing.T) {
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
			rs := refs(2)
			// A regular activity: the test environment caps its retries at 10.
			rec := mockPipeline(env, rs, nil, failActivity(activities.StepAnchored, c.err))
			res := runBatch(t, env, 2)
			for _, r := range rs {
				got := rec.finished[r.AssertionID]
				require.Equal(t, string(c.wantCode), got.ErrorCode)
				require.Equal(t, activities.StepAnchored, got.Stage)
			}
			require.Equal(t, map[string]int{"FAILED": 2}, res.ByState)
			env.AssertNumberOfCalls(t, "AnchorCredentials", c.wantCalls)
			env.AssertNumberOfCalls(t, "BakeBadges", 0)
		})
	}
}

// TestIssueBatchRetriesAfterTheDelay: a recipient whose step failed with a retryable code tries the step again
// after the delay the activity chose, alone, while the rest of its chunk goes on without waiting for it.
func TestIssueBatchRetriesAfterTheDelay(t *testing.T) {
	for _, succeedOn := range []int{2, 3} {
		t.Run(fmt.Sprintf("attempt %d", succeedOn), func(t *testing.T) {
			env := newEnv(t)
			rs := refs(2)
			flaky := rs[0].AssertionID
			const delay = 7 * time.Second
			rec := mockPipeline(env, rs, func(step string, id uuid.UUID, attempt int) *activities.StepFailure {
				if id == flaky && step == activities.StepPublished && attempt < succeedOn {
					return &activities.StepFailure{Code: string(errcode.ArtifactUploadFailed), Retry: true, Delay: delay}
				}
				return nil
			})
			start := env.Now()
			res := runBatch(t, env, 2)
			require.Equal(t, map[string]int{"RECEIVED": 2}, res.ByState)
			require.Equal(t, activities.Outcome{AssertionID: flaky}, rec.finished[flaky])
			uploads := 0
			for _, s := range rec.steps[flaky] {
				if s == activities.StepPublished {
					uploads++
				}
			}
			require.Equal(t, succeedOn, uploads)
			env.AssertNumberOfCalls(t, "PublishCredentials", succeedOn)
			env.AssertNumberOfCalls(t, "NotifyRecipients", 2) // the healthy recipient, then the flaky one
			elapsed := rec.at[flaky][activities.StepNotified].Sub(start)
			require.GreaterOrEqual(t, elapsed, time.Duration(succeedOn-1)*delay, "the delay is honoured")
			require.Less(t, elapsed, time.Duration(succeedOn-1)*delay+time.Second, "and nothing more")
			require.Less(t, rec.at[rs[1].AssertionID][activities.StepNotified].Sub(start), time.Second,
				"the other recipient did not wait for the retry")
		})
	}
}

// Recipients that fail at the same attempt with the same delay retry together, in one activity.
func TestIssueBatchRetriesTogether(t *testing.T) {
	env := newEnv(t)
	rs := refs(10)
	mockPipeline(env, rs, func(step string, id uuid.UUID, attempt int) *activities.StepFailure {
		if step == activities.StepAnchored && attempt == 1 {
			return &activities.StepFailure{Code: string(errcode.BlockchainRPCFailed), Retry: true, Delay: 3 * time.Second}
		}
		return nil
	})
	res := runBatch(t, env, 10)
	require.Equal(t, map[string]int{"RECEIVED": 10}, res.ByState)
	env.AssertNumberOfCalls(t, "AnchorCredentials", 2)
	env.AssertNumberOfCalls(t, "BakeBadges", 1)
}

func TestIssueBatchFinishFailureFailsBatch(t *testing.T) {
	env := newEnv(t)
	rs := refs(2)
	env.OnActivity(a.LoadBatch, mock.Anything, mock.Anything).Return(activities.LoadBatchResult{Recipients: rs}, nil)
	for _, st := range pipeline {
		env.OnActivity(st.run, mock.Anything, mock.Anything).Return(activities.StepResult{}, nil)
	}
	env.OnActivity(a.FinishAssertions, mock.Anything, mock.Anything).Return(activities.Tally{},
		temporal.NewNonRetryableApplicationError("db gone", "", nil))
	env.ExecuteWorkflow(IssueBatch, IssueBatchInput{IssuanceID: uuid.New(), ToSeq: 2})
	require.True(t, env.IsWorkflowCompleted())
	require.ErrorContains(t, env.GetWorkflowError(), "db gone")
}

// The progress query counts recipients at the step they run or wait to retry.
func TestIssueBatchProgressQuery(t *testing.T) {
	env := newEnv(t)
	rs := refs(3)
	waiting := rs[0].AssertionID
	mockPipeline(env, rs, func(step string, id uuid.UUID, attempt int) *activities.StepFailure {
		if id == waiting && step == activities.StepSigned && attempt == 1 {
			return &activities.StepFailure{Code: string(errcode.CredentialSigningFailed), Retry: true, Delay: 2 * time.Minute}
		}
		return nil
	}, holdAt(activities.StepBaked, time.Minute))
	var during BatchProgress
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(ProgressQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&during))
	}, 30*time.Second)
	runBatch(t, env, 3)
	require.Equal(t, 2, during.ByStep[activities.StepBaked], "in flight at baking: %v", during.ByStep)
	require.Equal(t, 1, during.ByStep[activities.StepSigned], "waiting to retry signing: %v", during.ByStep)
	require.Zero(t, during.ByStep[activities.StepChecked])
}
