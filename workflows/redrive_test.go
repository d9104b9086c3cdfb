package workflows

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/internal/errcode"
)

func TestRedriveIssuanceResumesAtFailedStep(t *testing.T) {
	// Not newEnv: mockPipeline expects LoadBatch, which a re-drive never calls.
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivity(a)
	env.RegisterWorkflow(RedriveIssuance)
	rs := refs(3)
	rs[0].Step = activities.StepChecked // failed while signing: resumes there
	rs[1].Step = activities.StepBaked   // failed while uploading
	rs[2].Done = true                   // no longer PROCESSING (finished by someone else): skipped
	rec := mockPipeline(env, nil, func(step string, id uuid.UUID, _ int) *activities.StepFailure {
		if id == rs[1].AssertionID && step == activities.StepNotified {
			return &activities.StepFailure{Code: string(errcode.RecipientNotFound)}
		}
		return nil
	})
	var loaded activities.LoadRecipientsInput
	env.OnActivity(a.LoadRecipients, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.LoadRecipientsInput) (activities.LoadBatchResult, error) {
			loaded = in
			return activities.LoadBatchResult{Recipients: rs}, nil
		})
	in := RedriveInput{IssuanceID: uuid.New(), AssertionIDs: []uuid.UUID{rs[0].AssertionID, rs[1].AssertionID, rs[2].AssertionID}}
	env.ExecuteWorkflow(RedriveIssuance, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res BatchResult
	require.NoError(t, env.GetWorkflowResult(&res))

	require.Equal(t, in.IssuanceID, loaded.IssuanceID)
	require.Equal(t, in.AssertionIDs, loaded.AssertionIDs)
	require.Equal(t, stepNames[1:], rec.steps[rs[0].AssertionID])
	require.Equal(t, []string{activities.StepPublished, activities.StepNotified}, rec.steps[rs[1].AssertionID])
	require.Empty(t, rec.steps[rs[2].AssertionID])
	require.Equal(t, BatchResult{Finished: 3, ByState: map[string]int{"RECEIVED": 1, "ISSUED": 1},
		FailedByCode: map[string]int{string(errcode.RecipientNotFound): 1}}, res)
	require.Len(t, rec.finished, 2)
}

func TestRedriveWorkflowID(t *testing.T) {
	require.Equal(t, "issuance/live/o/b/h/redrive-12", RedriveWorkflowID("issuance/live/o/b/h", 12))
}
