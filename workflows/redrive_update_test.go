package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// updateOutcome collects what the test environment reports of one Update.
type updateOutcome struct {
	rejected error
	accepted bool
	result   activities.RedriveResult
	err      error
	done     bool
}

func (o *updateOutcome) callbacks() *testsuite.TestUpdateCallback {
	return &testsuite.TestUpdateCallback{
		OnReject: func(err error) { o.rejected = err },
		OnAccept: func() { o.accepted = true },
		OnComplete: func(v any, err error) {
			o.done, o.err = true, err
			if r, ok := v.(activities.RedriveResult); ok {
				o.result = r
			}
		},
	}
}

// redriveMocks stands in for the database side of a re-drive: statuses answers GetRedriveStatus in turn (the last
// one again and again), PrepareRedriveRun answers run 1 of one recipient, and the re-drive child holds for hold.
type redriveMocks struct {
	mu       sync.Mutex
	statuses []activities.RedriveStatus
	reads    int
	prepares int
	children []RedriveInput
	childIDs []string
}

func (m *redriveMocks) install(env *testsuite.TestWorkflowEnvironment, hold time.Duration) {
	env.OnActivity(a.GetRedriveStatus, mock.Anything, mock.Anything).Return(
		func(context.Context, uuid.UUID) (activities.RedriveStatus, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			st := m.statuses[min(m.reads, len(m.statuses)-1)]
			m.reads++
			return st, nil
		}).Maybe()
	redriven := uuid.New()
	env.OnActivity(a.PrepareRedriveRun, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.PrepareRedriveInput) (activities.RedriveRun, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.prepares++
			return activities.RedriveRun{AssertionIDs: []uuid.UUID{redriven}, Result: activities.RedriveResult{
				IssuanceID: in.IssuanceID.String(), Run: 1, WorkflowID: RedriveWorkflowID(parentID, 1), Created: true,
				AssertionIDs: []string{redriven.String()}, CreditsDebited: 1, SkippedByCode: map[string]int{}}}, nil
		}).Maybe()
	env.RegisterWorkflow(RedriveIssuance)
	env.OnWorkflow(RedriveIssuance, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in RedriveInput) (BatchResult, error) {
			m.mu.Lock()
			m.children = append(m.children, in)
			m.childIDs = append(m.childIDs, workflow.GetInfo(ctx).WorkflowExecution.ID)
			m.mu.Unlock()
			if err := workflow.Sleep(ctx, hold); err != nil {
				return BatchResult{}, err
			}
			return BatchResult{Finished: 1, ByState: map[string]int{"RECEIVED": 1}, FailedByCode: map[string]int{}}, nil
		}).Maybe()
}

func failedStatus(redrivable int, code string) activities.RedriveStatus {
	t := activities.NewTally()
	t.Count("RECEIVED", "", 1)
	t.Count("FAILED", code, 1)
	return activities.RedriveStatus{Tally: t, Redrivable: redrivable, FailedByCode: map[string]int{code: 1}}
}

func cleanStatus() activities.RedriveStatus {
	t := activities.NewTally()
	t.Count("RECEIVED", "", 2)
	return activities.RedriveStatus{Tally: t, FailedByCode: map[string]int{}}
}

// While the pipeline runs, the Update is refused with that reason; a run whose failures are all permanent then
// completes at once, without waiting for its window.
func TestRedriveUpdate_RefusedWhileRunningThenCompletesAtOnce(t *testing.T) {
	env, _, _ := newParentEnv(t, 10*time.Minute, nil)
	m := &redriveMocks{statuses: []activities.RedriveStatus{failedStatus(0, "DUPLICATE_ISSUANCE")}}
	m.install(env, time.Minute)
	var early updateOutcome
	env.RegisterDelayedCallback(func() { env.UpdateWorkflow(RedriveUpdate, "early", early.callbacks()) }, time.Minute)
	start := env.Now()
	in := issueInput(2)
	in.RedriveWindow = 24 * time.Hour
	env.ExecuteWorkflow(IssueBadge, in)
	require.NoError(t, env.GetWorkflowError())

	requireRefused(t, early.rejected)
	require.ErrorContains(t, early.rejected, "still running its pipeline")
	require.False(t, early.accepted)
	require.Less(t, env.Now().Sub(start), time.Hour, "nothing redrivable: no window")
	require.Zero(t, m.prepares)
	require.Equal(t, 1, m.reads)
}

// An Update in the window re-drives run 1 as a child with its recorded id; the same Update id again is answered
// from the first (one debit), another one while the run goes is refused, and once nothing redrivable remains
// the workflow completes, long before its window ends, with the tally Postgres gave.
func TestRedriveUpdate_RedrivesInTheWindow(t *testing.T) {
	env, _, _ := newParentEnv(t, time.Minute, nil)
	m := &redriveMocks{statuses: []activities.RedriveStatus{failedStatus(1, "BLOCKCHAIN_RPC_FAILED"), cleanStatus()}}
	m.install(env, 10*time.Minute)
	var first, again, busy updateOutcome
	env.RegisterDelayedCallback(func() { env.UpdateWorkflow(RedriveUpdate, "redrive-1", first.callbacks()) }, time.Hour)
	env.RegisterDelayedCallback(func() { env.UpdateWorkflow(RedriveUpdate, "redrive-1", again.callbacks()) }, time.Hour+time.Second)
	env.RegisterDelayedCallback(func() { env.UpdateWorkflow(RedriveUpdate, "other", busy.callbacks()) }, time.Hour+2*time.Second)
	start := env.Now()
	in := issueInput(2)
	in.RedriveWindow = 24 * time.Hour
	env.ExecuteWorkflow(IssueBadge, in)
	require.NoError(t, env.GetWorkflowError())

	require.True(t, first.accepted)
	require.NoError(t, first.err)
	require.Equal(t, 1, first.result.Run)
	require.True(t, first.result.Started)
	require.True(t, first.result.Created)
	require.Equal(t, RedriveWorkflowID(parentID, 1), first.result.WorkflowID)
	require.True(t, again.done)
	require.Equal(t, first.result, again.result, "the same Update id answers from the first")
	require.Equal(t, 1, m.prepares, "one debit")
	requireRefused(t, busy.rejected)
	require.ErrorContains(t, busy.rejected, "a re-drive is running ("+RedriveWorkflowID(parentID, 1)+")")

	require.Equal(t, []string{RedriveWorkflowID(parentID, 1)}, m.childIDs)
	require.Equal(t, in.IssuanceID, m.children[0].IssuanceID)
	require.Len(t, m.children[0].AssertionIDs, 1)
	require.Equal(t, 2, m.children[0].Total)
	elapsed := env.Now().Sub(start)
	require.GreaterOrEqual(t, elapsed, time.Hour+10*time.Minute, "completed after the re-drive")
	require.Less(t, elapsed, 2*time.Hour, "and did not wait out its window")
	var res IssueBadgeResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, map[string]int{"RECEIVED": 2}, res.ByState)
}

// Without a re-drive, a run with redrivable failures waits its window out, then completes.
func TestRedriveUpdate_WindowEnds(t *testing.T) {
	env, _, _ := newParentEnv(t, time.Minute, nil)
	m := &redriveMocks{statuses: []activities.RedriveStatus{failedStatus(1, "BLOCKCHAIN_RPC_FAILED")}}
	m.install(env, time.Minute)
	start := env.Now()
	in := issueInput(2)
	in.RedriveWindow = 3 * time.Hour
	env.ExecuteWorkflow(IssueBadge, in)
	require.NoError(t, env.GetWorkflowError())
	require.GreaterOrEqual(t, env.Now().Sub(start), 3*time.Hour+time.Minute)
	require.Zero(t, m.prepares)
}

// The validator's reasons, in the order it checks them.
func TestRedriveRefusal(t *testing.T) {
	s := redriveState{}
	require.ErrorContains(t, s.refusal(), "still running its pipeline")
	s.finished = true
	require.ErrorContains(t, s.refusal(), "nothing to re-drive")
	s.failed = map[string]int{"DUPLICATE_ISSUANCE": 2, "INVALID_RECIPIENT": 1}
	require.Equal(t, "re-drive refused: nothing to re-drive: no FAILED recipient has an errorCode "+
		"the retry table calls retryable (FAILED: DUPLICATE_ISSUANCE ×2, INVALID_RECIPIENT ×1)", requireRefused(t, s.refusal()))
	s.redrivable = 1
	require.NoError(t, s.refusal())
	s.running = "issuance/x/redrive-2"
	require.ErrorContains(t, s.refusal(), "a re-drive is running (issuance/x/redrive-2)")
	s.running, s.closing = "", true
	require.ErrorContains(t, s.refusal(), "window has closed")
}

// requireRefused requires err to be a refusal of the redrive Update and returns its reason.
func requireRefused(t *testing.T, err error) string {
	t.Helper()
	rf, ok := activities.AsRedriveRefusal(err)
	require.True(t, ok, "not a refusal: %v", err)
	return rf.Error()
}
