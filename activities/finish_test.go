package activities

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestFinishAssertion(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	cases := []struct {
		name       string
		mode       string
		apiVersion int16
		in         FinishInput // AssertionID is filled in
		wantState  string
		wantRefund int64
	}{
		{"success v3", "live", 3, FinishInput{}, "RECEIVED", 0},
		{"success v2", "live", 2, FinishInput{}, "ISSUED", 0},
		{"notify failed v3", "live", 3, FinishInput{ErrorCode: "EMAIL_SEND_FAILED", Stage: StepNotified}, "ISSUED", 0},
		{"notify failed v2", "live", 2, FinishInput{ErrorCode: "BOUNCED_EMAIL", Stage: StepNotified}, "ISSUED", 0},
		{"sign failed live", "live", 3, FinishInput{ErrorCode: "CREDENTIAL_SIGNING_FAILED", Stage: StepSigned}, "FAILED", 1},
		{"check failed v2 live", "live", 2, FinishInput{ErrorCode: "DUPLICATE_ISSUANCE", Stage: StepChecked}, "FAILED", 1},
		{"upload failed test mode", "test", 3, FinishInput{ErrorCode: "ARTIFACT_UPLOAD_FAILED", Stage: StepUploaded}, "FAILED", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ids := f.mustIssuance(t, c.mode, c.apiVersion, recipient{})
			before := f.credits(t)
			in := c.in
			in.AssertionID = ids[0]
			got, err := f.acts.FinishAssertion(ctx, in)
			require.NoError(t, err)
			require.Equal(t, FinishResult{State: c.wantState, ErrorCode: c.in.ErrorCode}, got)
			as := f.mustAssertion(t, ids[0])
			require.Equal(t, c.wantState, as.State)
			require.Equal(t, c.in.ErrorCode, deref(as.ErrorCode))
			require.Equal(t, before+c.wantRefund, f.credits(t), "refund")

			// A retried activity (or a second finish with another outcome) changes nothing and refunds nothing.
			again, err := f.acts.FinishAssertion(ctx, FinishInput{AssertionID: ids[0], ErrorCode: "INTERNAL_SERVER_ERROR", Stage: StepAnchored})
			require.NoError(t, err)
			require.Equal(t, got, again)
			require.Equal(t, c.wantState, f.mustAssertion(t, ids[0]).State)
			require.Equal(t, before+c.wantRefund, f.credits(t), "second call refunded again")
		})
	}
	t.Run("unknown assertion", func(t *testing.T) {
		_, err := f.acts.FinishAssertion(ctx, FinishInput{AssertionID: uuid.New()})
		require.Error(t, err)
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
