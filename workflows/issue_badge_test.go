package workflows

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

const parentID = "issuance/test"

// childRecorder stands in for IssueBatch: each child holds for a while on the workflow clock, then finishes its
// range with one FAILED recipient, or fails when fail says so.
type childRecorder struct {
	mu      sync.Mutex
	inputs  []IssueBatchInput
	ids     []string
	running int
	maxRun  int
}

func (c *childRecorder) child(hold time.Duration, fail func(IssueBatchInput) error) func(workflow.Context, IssueBatchInput) (BatchResult, error) {
	return func(ctx workflow.Context, in IssueBatchInput) (BatchResult, error) {
		c.mu.Lock()
		c.inputs = append(c.inputs, in)
		c.ids = append(c.ids, workflow.GetInfo(ctx).WorkflowExecution.ID)
		c.running++
		c.maxRun = max(c.maxRun, c.running)
		c.mu.Unlock()
		defer func() { c.mu.Lock(); c.running--; c.mu.Unlock() }()
		if hold > 0 {
			if err := workflow.Sleep(ctx, hold); err != nil {
				return BatchResult{}, err
			}
		}
		if fail != nil {
			if err := fail(in); err != nil {
				return BatchResult{}, err
			}
		}
		n := in.ToSeq - in.FromSeq
		return BatchResult{Finished: n, ByState: map[string]int{"RECEIVED": n - 1, "FAILED": 1},
			FailedByCode: map[string]int{"DUPLICATE_ISSUANCE": 1}}, nil
	}
}

func newParentEnv(t *testing.T, hold time.Duration, fail func(IssueBatchInput) error) (*testsuite.TestWorkflowEnvironment, *childRecorder, *[]activities.CompleteIssuanceInput) {
	t.Helper()
	env := newEnv(t)
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: parentID})
	kids := &childRecorder{}
	env.OnWorkflow(IssueBatch, mock.Anything, mock.Anything).Return(kids.child(hold, fail))
	completed := &[]activities.CompleteIssuanceInput{}
	env.OnActivity(a.CompleteIssuance, mock.Anything, mock.Anything).Return(
		func(_ context.Context, c activities.CompleteIssuanceInput) error {
			*completed = append(*completed, c)
			return nil
		})
	return env, kids, completed
}

func issueInput(n int) IssueBadgeInput {
	return IssueBadgeInput{IssuanceID: uuid.New(), OrgID: uuid.New(), BadgeID: uuid.New(), APIVersion: 3, RecipientCount: n}
}

func queryProgress(t *testing.T, env *testsuite.TestWorkflowEnvironment) Progress {
	t.Helper()
	v, err := env.QueryWorkflow(ProgressQuery)
	require.NoError(t, err)
	var p Progress
	require.NoError(t, v.Get(&p))
	return p
}

func TestIssueBadgeSplitsIntoBatches(t *testing.T) {
	env, kids, completed := newParentEnv(t, 0, nil)
	n := 2*BatchSize + 250
	in := issueInput(n)
	env.ExecuteWorkflow(IssueBadge, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())

	require.ElementsMatch(t, []IssueBatchInput{
		{IssuanceID: in.IssuanceID, FromSeq: 0, ToSeq: BatchSize, Total: n},
		{IssuanceID: in.IssuanceID, FromSeq: BatchSize, ToSeq: 2 * BatchSize, Total: n},
		{IssuanceID: in.IssuanceID, FromSeq: 2 * BatchSize, ToSeq: n, Total: n},
	}, kids.inputs)
	require.ElementsMatch(t, []string{parentID + "/batch-00000", parentID + "/batch-00001", parentID + "/batch-00002"}, kids.ids)

	want := Progress{Total: n, Tally: activities.Tally{Finished: n, ByState: map[string]int{"RECEIVED": n - 3, "FAILED": 3},
		FailedByCode: map[string]int{"DUPLICATE_ISSUANCE": 3}}}
	var res IssueBadgeResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, want, res)
	require.Equal(t, []activities.CompleteIssuanceInput{{IssuanceID: in.IssuanceID}}, *completed)

	p := queryProgress(t, env) // after completion
	require.Empty(t, p.RunningBatches)
	p.RunningBatches = nil
	require.Equal(t, want, p)
}

func TestIssueBadgeBoundsConcurrentBatches(t *testing.T) {
	env, kids, _ := newParentEnv(t, time.Minute, nil)
	env.ExecuteWorkflow(IssueBadge, issueInput(10*BatchSize+1))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, kids.inputs, 11)
	require.Equal(t, MaxConcurrentBatches, kids.maxRun)
}

func TestIssueBadgeProgressWhileRunning(t *testing.T) {
	env, _, _ := newParentEnv(t, time.Minute, func(in IssueBatchInput) error { return nil })
	var during Progress
	env.RegisterDelayedCallback(func() { during = queryProgress(t, env) }, 30*time.Second)
	env.ExecuteWorkflow(IssueBadge, issueInput(2*BatchSize+250))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, 2*BatchSize+250, during.Total)
	require.Zero(t, during.Finished)
	require.Equal(t, []string{parentID + "/batch-00000", parentID + "/batch-00001", parentID + "/batch-00002"}, during.RunningBatches)
}

func TestIssueBadgeChildFails(t *testing.T) {
	env, kids, completed := newParentEnv(t, 0, func(in IssueBatchInput) error {
		if in.FromSeq == BatchSize {
			return temporal.NewNonRetryableApplicationError("load batch: database is down", "", nil)
		}
		return nil
	})
	in := issueInput(2*BatchSize + 250)
	env.ExecuteWorkflow(IssueBadge, in)
	require.True(t, env.IsWorkflowCompleted())
	err := env.GetWorkflowError()
	require.ErrorContains(t, err, "database is down")
	require.ErrorContains(t, err, parentID+"/batch-00001", "the failure names the batch")
	require.Len(t, kids.inputs, 3, "the other batches still run")

	require.Len(t, *completed, 1)
	require.Equal(t, in.IssuanceID, (*completed)[0].IssuanceID)
	require.Contains(t, (*completed)[0].Failure, "database is down")

	p := queryProgress(t, env)
	require.Equal(t, BatchSize+250, p.Finished, "the two good batches are counted")
	require.Empty(t, p.RunningBatches)
}

func TestIssueBadgeCompleteFails(t *testing.T) {
	env := newEnv(t)
	kids := &childRecorder{}
	env.OnWorkflow(IssueBatch, mock.Anything, mock.Anything).Return(kids.child(0, nil))
	env.OnActivity(a.CompleteIssuance, mock.Anything, mock.Anything).Return(
		temporal.NewNonRetryableApplicationError("commit failed", "", nil))
	env.ExecuteWorkflow(IssueBadge, issueInput(5))
	require.ErrorContains(t, env.GetWorkflowError(), "commit failed")
}

func TestExpireAssertionsWorkflow(t *testing.T) {
	env := newEnv(t)
	env.OnActivity(a.ExpireAssertions, mock.Anything).Return(int64(1234), nil)
	env.ExecuteWorkflow(ExpireAssertions)
	require.NoError(t, env.GetWorkflowError())
	var n int64
	require.NoError(t, env.GetWorkflowResult(&n))
	require.EqualValues(t, 1234, n)
}

func TestIssuanceWorkflowID(t *testing.T) {
	org, badge := uuid.New(), uuid.New()
	id := IssuanceWorkflowID("live", org, badge, "key-1")
	require.Equal(t, id, IssuanceWorkflowID("live", org, badge, "key-1"), "a retried start finds the same workflow")
	require.NotEqual(t, id, IssuanceWorkflowID("live", org, badge, "key-2"))
	require.NotEqual(t, id, IssuanceWorkflowID("live", org, uuid.New(), "key-1"))
	require.NotEqual(t, id, IssuanceWorkflowID("test", org, badge, "key-1"), "test keys have their own scope")
	require.Regexp(t, fmt.Sprintf(`^issuance/live/%s/%s/[0-9a-f]{32}$`, org, badge), id)
}
