package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/workflows"
)

// The floor of the issuance pipeline: the same workflows (IssueBadge, its IssueBatch children, the same chunks,
// local and regular activities and finish calls) on the same embedded Temporal server, with activities that do
// nothing. What the pipeline takes beyond it is the work itself: signing, Postgres, the chain, the mail.

// floorTaskQueue keeps the floor's workflows and no-op activities away from the real worker.
const floorTaskQueue = "badged-floor"

// floorActivities has the method names of activities.Activities, so the workflows' activity references resolve
// to these; each answers as a step that succeeds for every recipient would.
type floorActivities struct{}

func (floorActivities) LoadBatch(_ context.Context, in activities.LoadBatchInput) (activities.LoadBatchResult, error) {
	out := activities.LoadBatchResult{Recipients: make([]activities.RecipientRef, 0, in.ToSeq-in.FromSeq)}
	for seq := in.FromSeq; seq < in.ToSeq; seq++ {
		out.Recipients = append(out.Recipients, activities.RecipientRef{AssertionID: uuid.New(), Seq: seq, Step: activities.StepPending})
	}
	return out, nil
}

func (floorActivities) CheckRecipients(context.Context, activities.StepBatch) (activities.StepResult, error) {
	return activities.StepResult{}, nil
}

func (floorActivities) SignCredentials(context.Context, activities.StepBatch) (activities.StepResult, error) {
	return activities.StepResult{}, nil
}

func (floorActivities) AnchorCredentials(context.Context, activities.StepBatch) (activities.StepResult, error) {
	return activities.StepResult{}, nil
}

func (floorActivities) BakeBadges(context.Context, activities.StepBatch) (activities.StepResult, error) {
	return activities.StepResult{}, nil
}

func (floorActivities) PublishCredentials(context.Context, activities.StepBatch) (activities.StepResult, error) {
	return activities.StepResult{}, nil
}

func (floorActivities) NotifyRecipients(context.Context, activities.StepBatch) (activities.StepResult, error) {
	return activities.StepResult{}, nil
}

func (floorActivities) FinishAssertions(_ context.Context, in activities.FinishBatch) (activities.Tally, error) {
	t := activities.NewTally()
	t.Count("RECEIVED", "", len(in.Outcomes))
	return t, nil
}

func (floorActivities) CompleteIssuance(context.Context, activities.CompleteIssuanceInput) error {
	return nil
}

// startFloorWorker runs the issuance workflows with floorActivities on floorTaskQueue of the stack's server.
func (s *stack) startFloorWorker(tb testing.TB) {
	tb.Helper()
	w := worker.New(s.Client, floorTaskQueue, worker.Options{})
	w.RegisterWorkflow(workflows.IssueBadge)
	w.RegisterWorkflow(workflows.IssueBatch)
	w.RegisterActivity(&floorActivities{})
	require.NoError(tb, w.Start())
	tb.Cleanup(w.Stop)
}

// runFloor runs one issuance of n recipients through the floor and returns how long it took, from the start of its
// workflow to its result.
func (s *stack) runFloor(tb testing.TB, n int) time.Duration {
	tb.Helper()
	in := workflows.IssueBadgeInput{IssuanceID: uuid.New(), OrgID: uuid.New(), BadgeID: uuid.New(), APIVersion: 3, RecipientCount: n}
	start := time.Now()
	run, err := s.Client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID: "floor/" + in.IssuanceID.String(), TaskQueue: floorTaskQueue, TypedSearchAttributes: workflows.SearchAttributes(in),
	}, workflows.IssueBadge, in)
	require.NoError(tb, err)
	var res workflows.IssueBadgeResult
	require.NoError(tb, run.Get(context.Background(), &res))
	require.Equal(tb, n, res.ByState["RECEIVED"], "every recipient went through the floor")
	return time.Since(start)
}
