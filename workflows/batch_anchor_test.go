package workflows

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/internal/errcode"
)

// With BatchAnchor every recipient is checked and signed, the batch is anchored once, and only then are the
// credentials baked, published and notified; a recipient that failed before never reaches the anchor.
func TestIssueBatchAnchorsOncePerBatch(t *testing.T) {
	env := newEnv(t)
	rs := refs(5)
	var anchored atomic.Int32
	rec := mockPipeline(env, rs, func(step string, id uuid.UUID, _ int32) error {
		if step == activities.StepBaked && anchored.Load() == 0 {
			t.Errorf("baked before the batch anchor")
		}
		if step == activities.StepChecked && id == rs[2].AssertionID {
			return temporal.NewNonRetryableApplicationError("dup", string(errcode.DuplicateIssuance), nil)
		}
		return nil
	})
	var got activities.AnchorBatchInput
	env.OnActivity(a.AnchorBatch, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.AnchorBatchInput) error {
			got = in
			anchored.Add(1)
			return nil
		})
	env.ExecuteWorkflow(IssueBatch, IssueBatchInput{IssuanceID: uuid.New(), FromSeq: 0, ToSeq: 5, BatchAnchor: true})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res BatchResult
	require.NoError(t, env.GetWorkflowResult(&res))

	require.EqualValues(t, 1, anchored.Load(), "one anchor for the whole batch")
	require.Equal(t, 0, got.FromSeq)
	require.Equal(t, 5, got.ToSeq)
	env.AssertNumberOfCalls(t, "AnchorCredential", 0)
	require.Equal(t, map[string]int{"RECEIVED": 4, "FAILED": 1}, res.ByState)
	require.Equal(t, []string{activities.StepChecked}, rec.steps[rs[2].AssertionID])
	require.Equal(t, []string{activities.StepChecked, activities.StepSigned, activities.StepBaked,
		activities.StepUploaded, activities.StepNotified}, rec.steps[rs[0].AssertionID])
}

// A failed batch anchor fails every recipient that reached it, with the anchor's code at the anchor stage.
func TestIssueBatchAnchorFailureFailsTheBatch(t *testing.T) {
	env := newEnv(t)
	rs := refs(3)
	rec := mockPipeline(env, rs, nil)
	env.OnActivity(a.AnchorBatch, mock.Anything, mock.Anything).Return(
		temporal.NewNonRetryableApplicationError("reverted", string(errcode.BlockchainTxReverted), nil))
	env.ExecuteWorkflow(IssueBatch, IssueBatchInput{IssuanceID: uuid.New(), FromSeq: 0, ToSeq: 3, BatchAnchor: true})
	require.NoError(t, env.GetWorkflowError())
	for _, r := range rs {
		f := rec.finished[r.AssertionID]
		require.Equal(t, string(errcode.BlockchainTxReverted), f.ErrorCode)
		require.Equal(t, activities.StepAnchored, f.Stage)
	}
	env.AssertNumberOfCalls(t, "BakeBadge", 0)
}
