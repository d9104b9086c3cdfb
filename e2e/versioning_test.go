package e2e

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/temporal"
	"github.com/badged/badged/workflows"

	"github.com/badged/badged/internal/waitfor"
)

// batchStartChange is the change id of the next release's IssueBatch in TestVersioning_RunningIssuanceFinishes.
const batchStartChange = "record-batch-start"

// nextIssueBatch is IssueBatch as a next release could change it, the way every change to workflow code ships
// (README, "Deploys without draining"): a batch first runs a new activity, then goes on as before. A run that
// started before the change replays its history without the change's marker, so GetVersion answers
// DefaultVersion and it keeps the old path; a run that reaches the call live records version 1 and takes the new.
func nextIssueBatch(ctx workflow.Context, in workflows.IssueBatchInput) (workflows.BatchResult, error) {
	if workflow.GetVersion(ctx, batchStartChange, workflow.DefaultVersion, 1) == 1 {
		if err := recordBatchStart(ctx, in); err != nil {
			return workflows.BatchResult{}, err
		}
	}
	return workflows.IssueBatch(ctx, in)
}

// unguardedIssueBatch is the same change without GetVersion: what must never ship.
func unguardedIssueBatch(ctx workflow.Context, in workflows.IssueBatchInput) (workflows.BatchResult, error) {
	if err := recordBatchStart(ctx, in); err != nil {
		return workflows.BatchResult{}, err
	}
	return workflows.IssueBatch(ctx, in)
}

func recordBatchStart(ctx workflow.Context, in workflows.IssueBatchInput) error {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	return workflow.ExecuteActivity(actx, "RecordBatchStart", in).Get(ctx, nil)
}

// batchStarts is the new release's activity: it remembers the batches it saw.
type batchStarts struct {
	mu   sync.Mutex
	seen []workflows.IssueBatchInput
}

func (b *batchStarts) record(_ context.Context, in workflows.IssueBatchInput) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen = append(b.seen, in)
	return nil
}

func (b *batchStarts) issuances() []uuid.UUID {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []uuid.UUID
	for _, in := range b.seen {
		out = append(out, in.IssuanceID)
	}
	return out
}

// TestVersioning_RunningIssuanceFinishes is a deploy without draining: an issuance starts on the released code's
// worker; that worker stops mid-batch (its anchor step running) and the next release's worker, whose IssueBatch
// carries a change behind workflow.GetVersion, takes over. The running batch replays the old history on the new
// code, keeps the old path and finishes: every recipient RECEIVED once. A batch that starts on the new release
// takes the new path. The same change without GetVersion does not replay the old run's history.
func TestVersioning_RunningIssuanceFinishes(t *testing.T) {
	// The anchor step holds a batch ANCHOR_MIN_WAIT: a window in which the old worker is stopped mid-run.
	s := newStack(t, stackOptions{anchorWait: 3 * time.Second, anchorMinWait: 3 * time.Second})
	s.StopWorker()
	quiet := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	dial := func(identity string) client.Client {
		c, err := client.Dial(client.Options{HostPort: s.Temporal.FrontendAddr(), Namespace: s.Temporal.Namespace(),
			Identity: identity, Logger: quiet})
		require.NoError(t, err)
		t.Cleanup(c.Close)
		return c
	}
	// The released code, as `badged worker` runs it; Stop lets the activities it runs finish (SHUTDOWN_TIMEOUT).
	old := temporal.NewWorker(dial("release-1"), s.Acts, temporal.WorkerOptions{StopTimeout: time.Minute})
	require.NoError(t, old.Start())
	stopOld := sync.OnceFunc(old.Stop)
	t.Cleanup(stopOld)
	tn := s.mustTenant(t, 10)

	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "deploy-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("deploy", 3), ""))
	issuance := uuid.MustParse(id)
	batchID := s.workflowIDOf(t, id) + "/batch-00000"
	// The old worker has run the batch up to its anchor step and is running that step.
	waitfor.True(t, time.Minute, 20*time.Millisecond, "the batch to reach its anchor step",
		func() bool { return s.activityRunning(t, batchID, "AnchorCredentials") })
	stopOld() // no more tasks for the old code; returns once its anchor step has finished
	require.Equal(t, 3, s.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'PROCESSING'", issuance),
		"the issuance is mid-run when the old worker is gone")

	starts := &batchStarts{}
	next := worker.New(dial("release-2"), workflows.TaskQueue, worker.Options{})
	for _, wf := range temporal.Workflows() {
		fn := wf.Func
		if wf.Name == "IssueBatch" {
			fn = nextIssueBatch
		}
		next.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: wf.Name})
	}
	next.RegisterActivity(s.Acts)
	next.RegisterActivityWithOptions(starts.record, activity.RegisterOptions{Name: "RecordBatchStart"})
	require.NoError(t, next.Start())
	t.Cleanup(next.Stop)

	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	require.Equal(t, []string{"RECEIVED", "RECEIVED", "RECEIVED"}, states(s.assertionRows(t, id)))
	for _, r := range s.assertionRows(t, id) {
		n := 0
		for _, m := range s.SMTP.Messages() {
			if m.MessageID == "<"+messageID(r.ID.String())+">" {
				n++
			}
		}
		require.Equal(t, 1, n, "one message to each recipient")
	}
	rec := &historyRecorder{s: s}
	batch := rec.events(t, batchID)
	require.Equal(t, []string{"release-1", "release-2"}, taskIdentities(batch), "begun on the old code, finished on the new")
	// The released code records its own changes (operator-view); what matters is that this release's is absent.
	require.NotContains(t, versionMarkers(t, batch), batchStartChange, "the running batch kept the old path")
	require.NotContains(t, starts.issuances(), issuance)

	// A batch that starts on the new release records the change and takes its path.
	id2 := s.mustIssue(t, "v3", tn.Key, tn.Badge, "deploy-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("deploy2", 1), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id2, issueTimeout)["processingStatus"])
	require.Equal(t, []string{"RECEIVED"}, states(s.assertionRows(t, id2)))
	require.Equal(t, []uuid.UUID{uuid.MustParse(id2)}, starts.issuances())
	require.Contains(t, versionMarkers(t, rec.events(t, s.workflowIDOf(t, id2)+"/batch-00000")), batchStartChange)

	// Why GetVersion: the same change without it cannot replay the run that started on the old code.
	replay := func(fn any) error {
		r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{})
		require.NoError(t, err)
		r.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: "IssueBatch"})
		return r.ReplayWorkflowHistory(quiet, &historypb.History{Events: batch})
	}
	require.NoError(t, replay(nextIssueBatch))
	err := replay(unguardedIssueBatch)
	require.ErrorContains(t, err, "[TMPRL1100]") // the SDK's non-determinism error
	t.Logf("the unguarded change on the old run: %v", err)
}

// activityRunning reports whether a worker has taken activity typ of workflow id and runs it.
func (s *stack) activityRunning(tb testing.TB, id, typ string) bool {
	tb.Helper()
	d, err := s.Client.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		var notFound *serviceerror.NotFound
		require.ErrorAs(tb, err, &notFound) // the child is not started yet
		return false
	}
	for _, a := range d.GetPendingActivities() {
		if a.GetActivityType().GetName() == typ && a.GetState() == enums.PENDING_ACTIVITY_STATE_STARTED {
			return true
		}
	}
	return false
}

// taskIdentities are the workers that completed the history's workflow tasks, in order of first appearance.
func taskIdentities(evs []*historypb.HistoryEvent) []string {
	var out []string
	for _, e := range evs {
		if a := e.GetWorkflowTaskCompletedEventAttributes(); a != nil && !slices.Contains(out, a.GetIdentity()) {
			out = append(out, a.GetIdentity())
		}
	}
	return out
}

// versionMarkers are the change ids of the GetVersion markers in a history (the SDK's "Version" markers).
func versionMarkers(tb testing.TB, evs []*historypb.HistoryEvent) []string {
	tb.Helper()
	var out []string
	for _, e := range evs {
		if a := e.GetMarkerRecordedEventAttributes(); a.GetMarkerName() == "Version" {
			var change string
			require.NoError(tb, converter.GetDefaultDataConverter().FromPayloads(a.GetDetails()["change-id"], &change))
			out = append(out, change)
		}
	}
	return out
}
