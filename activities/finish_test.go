package activities

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestFinishAssertions(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	cases := []struct {
		name       string
		mode       string
		apiVersion int16
		in         Outcome // AssertionID is filled in
		wantState  string
		wantRefund int64
	}{
		{"success v3", "live", 3, Outcome{}, "RECEIVED", 0},
		{"success v2", "live", 2, Outcome{}, "ISSUED", 0},
		{"notify failed v3", "live", 3, Outcome{ErrorCode: "EMAIL_SEND_FAILED", Stage: StepNotified}, "ISSUED", 0},
		{"notify failed v2", "live", 2, Outcome{ErrorCode: "BOUNCED_EMAIL", Stage: StepNotified}, "ISSUED", 0},
		{"sign failed live", "live", 3, Outcome{ErrorCode: "CREDENTIAL_SIGNING_FAILED", Stage: StepSigned}, "FAILED", 1},
		{"check failed v2 live", "live", 2, Outcome{ErrorCode: "DUPLICATE_ISSUANCE", Stage: StepChecked}, "FAILED", 1},
		{"upload failed test mode", "test", 3, Outcome{ErrorCode: "ARTIFACT_UPLOAD_FAILED", Stage: StepPublished}, "FAILED", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			iss, ids := f.mustIssuance(t, c.mode, c.apiVersion, recipient{})
			before := f.credits(t)
			in := c.in
			in.AssertionID = ids[0]
			got, err := f.acts.FinishAssertions(ctx, FinishBatch{IssuanceID: iss, Outcomes: []Outcome{in}})
			require.NoError(t, err)
			want := NewTally()
			want.Count(c.wantState, c.in.ErrorCode, 1)
			require.Equal(t, want, got)
			as := f.mustAssertion(t, ids[0])
			require.Equal(t, c.wantState, as.State)
			require.Equal(t, c.in.ErrorCode, deref(as.ErrorCode))
			require.Equal(t, before+c.wantRefund, f.credits(t), "refund")

			// A retried activity (or a second finish with another outcome) changes nothing, refunds nothing and
			// reports the stored outcome.
			again, err := f.acts.FinishAssertions(ctx, FinishBatch{IssuanceID: iss, Outcomes: []Outcome{
				{AssertionID: ids[0], ErrorCode: "INTERNAL_SERVER_ERROR", Stage: StepAnchored}}})
			require.NoError(t, err)
			require.Equal(t, got, again)
			require.Equal(t, c.wantState, f.mustAssertion(t, ids[0]).State)
			require.Equal(t, before+c.wantRefund, f.credits(t), "second call refunded again")
		})
	}
	t.Run("a chunk of mixed outcomes refunds its failures once", func(t *testing.T) {
		iss, ids := f.mustIssuance(t, "live", 3, recipient{}, recipient{}, recipient{}, recipient{State: "RECEIVED"})
		before := f.credits(t)
		outcomes := []Outcome{{AssertionID: ids[0]},
			{AssertionID: ids[1], ErrorCode: "DUPLICATE_ISSUANCE", Stage: StepChecked},
			{AssertionID: ids[2], ErrorCode: "MISSING_INFO", Stage: StepChecked},
			{AssertionID: ids[3], ErrorCode: "MISSING_INFO", Stage: StepChecked}} // already finished: kept
		got, err := f.acts.FinishAssertions(ctx, FinishBatch{IssuanceID: iss, Outcomes: outcomes})
		require.NoError(t, err)
		require.Equal(t, 4, got.Finished)
		require.Equal(t, map[string]int{"RECEIVED": 2, "FAILED": 2}, got.ByState)
		require.Equal(t, map[string]int{"DUPLICATE_ISSUANCE": 1, "MISSING_INFO": 1}, got.FailedByCode)
		require.Equal(t, before+2, f.credits(t))
		require.Equal(t, "RECEIVED", f.mustAssertion(t, ids[3]).State)
	})
	t.Run("unknown assertion is ignored", func(t *testing.T) {
		got, err := f.acts.FinishAssertions(ctx, FinishBatch{Outcomes: []Outcome{{AssertionID: uuid.New()}}})
		require.NoError(t, err)
		require.Empty(t, got.ByState)
	})
}

func TestCompleteIssuance(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()

	t.Run("completed", func(t *testing.T) {
		iss, _ := f.mustIssuance(t, "live", 3, recipient{State: "RECEIVED"})
		require.NoError(t, f.acts.CompleteIssuance(ctx, CompleteIssuanceInput{IssuanceID: iss}))
		got, err := f.DB.GetIssuanceAnyOrg(ctx, iss)
		require.NoError(t, err)
		require.Equal(t, "COMPLETED", got.ProcessingStatus)
		require.Nil(t, got.Failure)
		// A second attempt leaves it as it is.
		require.NoError(t, f.acts.CompleteIssuance(ctx, CompleteIssuanceInput{IssuanceID: iss, Failure: "late"}))
		got, err = f.DB.GetIssuanceAnyOrg(ctx, iss)
		require.NoError(t, err)
		require.Equal(t, "COMPLETED", got.ProcessingStatus)
	})
	t.Run("failed run fails and refunds the rest", func(t *testing.T) {
		iss, ids := f.mustIssuance(t, "live", 3, recipient{State: "RECEIVED"}, recipient{}, recipient{Step: StepSigned})
		before := f.credits(t)
		require.NoError(t, f.acts.CompleteIssuance(ctx, CompleteIssuanceInput{IssuanceID: iss, Failure: "batch 0 failed"}))
		got, err := f.DB.GetIssuanceAnyOrg(ctx, iss)
		require.NoError(t, err)
		require.Equal(t, "FAILED", got.ProcessingStatus)
		require.Equal(t, "batch 0 failed", deref(got.Failure))
		require.Equal(t, "RECEIVED", f.mustAssertion(t, ids[0]).State)
		for _, id := range ids[1:] {
			as := f.mustAssertion(t, id)
			require.Equal(t, "FAILED", as.State)
			require.Equal(t, "INTERNAL_SERVER_ERROR", deref(as.ErrorCode))
		}
		require.Equal(t, before+2, f.credits(t))
	})
}
