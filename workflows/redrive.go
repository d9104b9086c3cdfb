package workflows

import (
	"strconv"

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
}

// RedriveWorkflowID is the id of an issuance's n-th re-drive run.
func RedriveWorkflowID(issuanceWorkflowID string, n int) string {
	return issuanceWorkflowID + "/redrive-" + strconv.Itoa(n)
}

// RedriveIssuance runs the rest of the pipeline for the named recipients, each from the step after its last
// completed one, with a transaction per anchored credential (no batch anchoring: the recipients are scattered
// over the issuance's seq ranges), then records each outcome like IssueBatch. The issuance's own status is left
// as it is.
func RedriveIssuance(ctx workflow.Context, in RedriveInput) (BatchResult, error) {
	res := BatchResult{ByState: map[string]int{}, FailedByCode: map[string]int{}}
	prog := BatchProgress{ByStep: map[string]int{}, FailedByCode: res.FailedByCode}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (BatchProgress, error) { return prog, nil }); err != nil {
		return res, err
	}
	workflow.GetLogger(ctx).Info("redrive started", "issuanceId", in.IssuanceID, "recipients", len(in.AssertionIDs))
	ids := in.AssertionIDs
	if len(ids) > MaxRedriveRecipients {
		ids = ids[:MaxRedriveRecipients]
	}
	var batch activities.LoadBatchResult
	dctx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	if err := workflow.ExecuteLocalActivity(dctx, a.LoadRecipients, activities.LoadRecipientsInput{
		IssuanceID: in.IssuanceID, AssertionIDs: ids}).Get(ctx, &batch); err != nil {
		return res, err
	}
	var pending []*recipientRun
	for _, r := range batch.Recipients {
		if r.Done {
			res.Finished++
			continue
		}
		pending = append(pending, &recipientRun{ref: r, finish: activities.FinishInput{AssertionID: r.AssertionID}})
	}
	runPhase(ctx, in.IssuanceID, pending, 0, len(pipeline), prog.ByStep)
	// Outcomes are recorded one after another: a re-drive is small, and FinishAssertion is a local activity.
	for _, run := range pending {
		var out activities.FinishResult
		if err := workflow.ExecuteLocalActivity(dctx, a.FinishAssertion, run.finish).Get(ctx, &out); err != nil {
			return res, err
		}
		res.Finished++
		res.ByState[out.State]++
		if out.ErrorCode != "" {
			res.FailedByCode[out.ErrorCode]++
		}
	}
	return res, nil
}
