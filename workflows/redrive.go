package workflows

import (
	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// MaxRedriveRecipients bounds one re-drive run, for the same history budget as a batch (BatchSize).
const MaxRedriveRecipients = BatchSize

// RedriveInput names the recipients of an issuance that an operator put back into the pipeline (state
// PROCESSING at the step they had reached); at most MaxRedriveRecipients.
type RedriveInput struct {
	IssuanceID   uuid.UUID
	AssertionIDs []uuid.UUID
	Total        int // recipients of the issuance, for the operator's summaries; 0 in runs started before them
}

// RedriveWorkflowID is the id of an issuance's n-th re-drive run (activities.RedriveWorkflowID, where the run is
// recorded).
func RedriveWorkflowID(issuanceWorkflowID string, n int) string {
	return activities.RedriveWorkflowID(issuanceWorkflowID, n)
}

// RedriveIssuance runs the rest of the pipeline for the named recipients, each from the step after its last
// completed one, exactly as IssueBatch does, then records each outcome. The issuance's own status is left as it is.
func RedriveIssuance(ctx workflow.Context, in RedriveInput) (BatchResult, error) {
	workflow.GetLogger(ctx).Info("redrive started", "issuanceId", in.IssuanceID, "recipients", len(in.AssertionIDs))
	ids := in.AssertionIDs
	if len(ids) > MaxRedriveRecipients {
		ids = ids[:MaxRedriveRecipients]
	}
	var view *runView
	if workflow.GetVersion(ctx, operatorViewChange, workflow.DefaultVersion, 1) == 1 {
		view = newRunView("Re-drive of "+Count(len(ids))+" recipients of issuance "+in.IssuanceID.String(), in.Total)
	}
	return runLoaded(ctx, in.IssuanceID, a.LoadRecipients,
		activities.LoadRecipientsInput{IssuanceID: in.IssuanceID, AssertionIDs: ids}, view)
}
