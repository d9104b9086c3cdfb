package activities

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
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
