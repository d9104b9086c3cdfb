package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/workflows"
)

// Redriver re-drives an issuance's retryable failures by whichever path its workflow allows: `badged admin
// issuance redrive` and the console's button both take it, so they act like the Temporal UI's Update.
type Redriver struct {
	DB     *db.DB
	Policy *retrypolicy.Policy // the retry table of the closed-workflow path (the Update's is the worker's)
	Client client.Client       // nil: the closed-workflow path only
	Start  RedriveStarter      // starts the run's workflow on the closed-workflow path (Starter.StartRedrive)
}

// Redrive sends the issuance workflow's redrive Update while the workflow is open (it waits for redrive-able
// failures after its pipeline, workflows.RedriveUpdate), and waits for its answer: the run's child has started, or
// the validator's refusal with its reason (an *activities.RedriveRefusal, as the other path's refusals are).
// Once the workflow has closed (or for runs started before the Update existed, which close at the end of their
// pipeline), it re-drives with Redrive, outside the workflow.
//
// The Update's id is "redrive-<n>", n the run it would create (the latest recorded run + 1): a command repeated
// after a lost answer reaches the same Update, which the server answers once, so nothing is debited twice; both
// paths share activities.PrepareRedrive, idempotent itself while a run has unfinished recipients.
func (r Redriver) Redrive(ctx context.Context, issID uuid.UUID) (RedriveResult, error) {
	if r.Client == nil {
		return Redrive(ctx, r.DB, r.Policy, r.Start, issID)
	}
	iss, err := r.DB.GetIssuanceAnyOrg(ctx, issID)
	if db.IsNotFound(err) {
		return RedriveResult{}, fmt.Errorf("issuance redrive: no issuance %s", issID)
	}
	if err != nil {
		return RedriveResult{}, fmt.Errorf("issuance redrive: read issuance: %w", err)
	}
	open, err := r.open(ctx, iss.WorkflowID)
	if err != nil {
		return RedriveResult{}, err
	}
	if !open {
		return Redrive(ctx, r.DB, r.Policy, r.Start, issID)
	}
	res, err := r.update(ctx, iss)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		// It closed between the describe and the Update (its window ended): the workflow-less path.
		return Redrive(ctx, r.DB, r.Policy, r.Start, issID)
	}
	return res, err
}

// open says whether the issuance's workflow is running.
func (r Redriver) open(ctx context.Context, workflowID string) (bool, error) {
	desc, err := r.Client.DescribeWorkflowExecution(ctx, workflowID, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return false, nil // never started, or Temporal lost it: Postgres has the recipients
	}
	if err != nil {
		return false, fmt.Errorf("issuance redrive: describe workflow %s: %w", workflowID, err)
	}
	return desc.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}

// update sends the redrive Update and waits for its answer.
func (r Redriver) update(ctx context.Context, iss db.Issuance) (RedriveResult, error) {
	latest, err := r.DB.GetLatestRedrive(ctx, iss.ID)
	if err != nil && !db.IsNotFound(err) {
		return RedriveResult{}, fmt.Errorf("issuance redrive: read redrive runs: %w", err)
	}
	updateID := fmt.Sprintf("redrive-%d", latest.N+1)
	h, err := r.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: iss.WorkflowID,
		UpdateName: workflows.RedriveUpdate, UpdateID: updateID, WaitForStage: client.WorkflowUpdateStageCompleted})
	var res RedriveResult
	if err == nil {
		err = h.Get(ctx, &res)
	}
	log := slog.Default().With("issuanceId", iss.ID.String(), "issuanceWorkflowId", iss.WorkflowID, "updateId", updateID)
	if rf, ok := activities.AsRedriveRefusal(err); ok {
		return RedriveResult{}, rf // refused with its reason, as the workflow-less path refuses: the caller's to show
	}
	if err != nil {
		log.InfoContext(ctx, "issuance redrive: the workflow's Update did not run", "err", err)
		return RedriveResult{}, fmt.Errorf("issuance redrive: Update %q of workflow %s: %w", workflows.RedriveUpdate, iss.WorkflowID, err)
	}
	log.InfoContext(ctx, "issuance redrive started by the workflow's Update", "workflowId", res.WorkflowID, "run", res.Run,
		"recipients", len(res.AssertionIDs), "created", res.Created, "creditsDebited", res.CreditsDebited)
	return res, nil
}
