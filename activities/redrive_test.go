package activities

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
)

func TestLoadRecipients(t *testing.T) {
	f := mustFixture(t)
	iss, ids := f.mustIssuance(t, "live", 3, recipient{State: "PROCESSING", Step: StepChecked}, recipient{},
		recipient{State: "FAILED", Step: StepSigned})
	other, otherIDs := f.mustIssuance(t, "live", 3, recipient{})
	require.NotEqual(t, iss, other)

	// Asked in another order, with an id of another issuance and an unknown one: seq order, own recipients only.
	out, err := f.acts.LoadRecipients(context.Background(), LoadRecipientsInput{IssuanceID: iss,
		AssertionIDs: []uuid.UUID{ids[2], otherIDs[0], ids[0], uuid.New()}})
	require.NoError(t, err)
	require.Equal(t, []RecipientRef{
		{AssertionID: ids[0], Seq: 0, Step: StepChecked},
		{AssertionID: ids[2], Seq: 2, Step: StepSigned, Done: true},
	}, out.Recipients)
}

// setCodes gives recipients their errorCode (test setup only: no query sets one directly).
func (f *fixture) setCodes(t *testing.T, codes map[uuid.UUID]string) {
	t.Helper()
	for id, c := range codes {
		_, err := f.DB.Pool.Exec(context.Background(), "UPDATE assertions SET error_code = $2 WHERE id = $1", id, c)
		require.NoError(t, err)
	}
}

// GetRedriveStatus counts what a re-drive would take with the retry table: FAILED recipients of a retryable class,
// and those a failed re-drive left PROCESSING; a permanent code and an issued credential's notification code are
// not redrivable, and only FAILED ones are named in FailedByCode.
func TestGetRedriveStatus(t *testing.T) {
	f := mustFixture(t)
	iss, ids := f.mustIssuance(t, "live", 3, recipient{State: "FAILED", Step: StepSigned}, recipient{State: "FAILED"},
		recipient{State: "FAILED", Step: StepPublished}, recipient{State: "ISSUED", Step: StepNotified},
		recipient{State: "RECEIVED", Step: StepNotified}, recipient{State: "PROCESSING", Step: StepAnchored})
	f.setCodes(t, map[uuid.UUID]string{ids[0]: "BLOCKCHAIN_RPC_FAILED", ids[1]: "DUPLICATE_ISSUANCE",
		ids[2]: "BLOCKCHAIN_RPC_FAILED", ids[3]: "REJECTED_EMAIL"})
	st, err := f.acts.GetRedriveStatus(context.Background(), iss)
	require.NoError(t, err)
	require.Equal(t, 3, st.Redrivable, "two on the chain class, one left PROCESSING")
	require.Equal(t, map[string]int{"BLOCKCHAIN_RPC_FAILED": 2, "DUPLICATE_ISSUANCE": 1}, st.FailedByCode)
	require.Equal(t, 5, st.Tally.Finished)
	require.Equal(t, map[string]int{"FAILED": 3, "ISSUED": 1, "RECEIVED": 1}, st.Tally.ByState)
	require.Equal(t, 1, st.Tally.FailedByCode["REJECTED_EMAIL"])
}

// PrepareRedriveRun, as the redrive Update's activity: a second call (a retried activity, a repeated Update)
// returns the same run without debiting again; a refusal is final, with its type.
func TestPrepareRedriveRun(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	iss, ids := f.mustIssuance(t, "live", 3, recipient{State: "FAILED", Step: StepSigned}, recipient{State: "FAILED"})
	f.setCodes(t, map[uuid.UUID]string{ids[0]: "BLOCKCHAIN_RPC_FAILED", ids[1]: "DUPLICATE_ISSUANCE"})

	_, err := f.acts.PrepareRedriveRun(ctx, PrepareRedriveInput{IssuanceID: iss, Max: 500})
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr, "still PROCESSING: refused")
	require.Equal(t, ErrTypeRedriveRefused, appErr.Type())
	require.True(t, appErr.NonRetryable())

	_, err = f.DB.Pool.Exec(ctx, "UPDATE issuances SET processing_status = 'COMPLETED' WHERE id = $1", iss)
	require.NoError(t, err)
	first, err := f.acts.PrepareRedriveRun(ctx, PrepareRedriveInput{IssuanceID: iss, Max: 500})
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{ids[0]}, first.AssertionIDs)
	require.Equal(t, RedriveResult{IssuanceID: iss.String(), Run: 1, WorkflowID: RedriveWorkflowID("wf-"+iss.String(), 1),
		Created: true, AssertionIDs: []string{ids[0].String()}, CreditsDebited: 1,
		SkippedByCode: map[string]int{"DUPLICATE_ISSUANCE": 1}}, first.Result)
	require.EqualValues(t, fixtureCredits-1, f.credits(t))

	again, err := f.acts.PrepareRedriveRun(ctx, PrepareRedriveInput{IssuanceID: iss, Max: 500})
	require.NoError(t, err)
	require.False(t, again.Result.Created)
	require.Equal(t, first.AssertionIDs, again.AssertionIDs)
	require.Equal(t, 1, again.Result.Run)
	require.EqualValues(t, fixtureCredits-1, f.credits(t), "debited once")
}
