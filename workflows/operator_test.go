package workflows

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/internal/errcode"
)

// upserts records the search attributes a run upserts, in order.
type upserts []map[string]any

func (u *upserts) record(attrs temporal.SearchAttributes) {
	m := map[string]any{}
	for k, v := range attrs.GetUntypedValues() {
		m[k.GetName()] = v
	}
	*u = append(*u, m)
}

// A batch upserts Stage once per stage its earliest recipients reach, with the counts so far, and once at the end
// with FailedCount and FailedCodes of what failed; every activity carries its chunk's summary.
func TestIssueBatchOperatorView(t *testing.T) {
	env := newEnv(t)
	rs := refs(3)
	dup := rs[1].AssertionID
	mockPipeline(env, rs, func(step string, id uuid.UUID, _ int) *activities.StepFailure {
		if step == activities.StepChecked && id == dup {
			return &activities.StepFailure{Code: string(errcode.DuplicateIssuance)}
		}
		return nil
	})
	var got upserts
	env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		got.record(args.Get(0).(temporal.SearchAttributes))
	}).Return(nil)
	env.ExecuteWorkflow(IssueBatch, IssueBatchInput{IssuanceID: uuid.New(), FromSeq: 0, ToSeq: 3, Total: 10_000})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())

	var stages []any
	for _, u := range got {
		stages = append(stages, u["Stage"])
		require.Contains(t, u, "StageSince", "every upsert here starts a stage")
	}
	require.Equal(t, []any{StageSigning, StageAnchoring, StageBaking, StagePublishing, StageNotifying, StageDone}, stages)
	last := got[len(got)-1]
	require.EqualValues(t, 2, last["IssuedCount"])
	require.EqualValues(t, 1, last["FailedCount"])
	require.Equal(t, []string{string(errcode.DuplicateIssuance)}, last["FailedCodes"])
}

func TestChunkSummary(t *testing.T) {
	seqs := make([]int, 100)
	for i := range seqs {
		seqs[i] = 1200 + i
	}
	require.Equal(t, "sign 1,201–1,300 of 10,000", chunkSummary("sign", seqs, 10_000))
	require.Equal(t, "anchor 5–9 (2 recipients)", chunkSummary("anchor", []int{4, 8}, 0))
	require.Equal(t, "notify 1", chunkSummary("notify", []int{0}, 0))
	require.Equal(t, "1,234,567", Count(1234567))
	require.Equal(t, "999", Count(999))
}

// A batch's current details say what the retry table did: the step and code retried, its longest delay, the
// attempts reached, and what gave up.
func TestIssueBatchRetryDetails(t *testing.T) {
	env := newEnv(t)
	rs := refs(3)
	mockPipeline(env, rs, func(step string, id uuid.UUID, attempt int) *activities.StepFailure {
		switch {
		case step == activities.StepNotified && id == rs[0].AssertionID && attempt < 3:
			return &activities.StepFailure{Code: string(errcode.EmailServerError), Retry: true, Delay: 5 * time.Second,
				Policy: "remote: 5s ×2 up to 5m0s, 10 attempts"}
		case step == activities.StepChecked && id == rs[1].AssertionID:
			return &activities.StepFailure{Code: string(errcode.DuplicateIssuance)}
		}
		return nil
	})
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil)
	env.ExecuteWorkflow(IssueBatch, IssueBatchInput{IssuanceID: uuid.New(), FromSeq: 0, ToSeq: 3, Total: 3})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	v, err := env.QueryWorkflow("__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdk.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	d := md.GetCurrentDetails()
	require.Contains(t, d, "stage **done** · 3 of 3 recipients finished")
	require.Contains(t, d, "| notify | `EMAIL_SERVER_ERROR` | remote: 5s ×2 up to 5m0s, 10 attempts | 2 | 5s | 0 | 2 |",
		"the rule the worker applied")
	require.Contains(t, d, "| check | `DUPLICATE_ISSUANCE` | – | 0 | 0s | 1 | 1 |", "a failure without its rule (an older worker)")
}
