package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/workflows"
)

// RedriveStarter starts (or finds running) the re-drive workflow with the given id.
type RedriveStarter func(ctx context.Context, iss db.Issuance, workflowID string, in workflows.RedriveInput) error

// StartRedrive starts a re-drive workflow. A running workflow of the id is reused (USE_EXISTING); a closed one is
// started again only if it failed (its recipients are then still PROCESSING), never after it completed.
func (s Starter) StartRedrive(ctx context.Context, iss db.Issuance, workflowID string, in workflows.RedriveInput) error {
	names := s.names(ctx, iss)
	in.Total = int(iss.AssertionCount)
	_, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
		TypedSearchAttributes: workflows.StartSearchAttributes(workflows.IssueBadgeInput{IssuanceID: iss.ID,
			OrgID: iss.OrgID, BadgeID: iss.BadgeID, APIVersion: int(iss.ApiVersion), RecipientCount: len(in.AssertionIDs)},
			iss.Mode, time.Now()),
		Memo:          map[string]any{"issuanceId": iss.ID.String(), "orgId": iss.OrgID.String(), "redrive": true},
		StaticSummary: redriveSummary(iss, names, workflowID, len(in.AssertionIDs)),
		StaticDetails: s.redriveDetails(iss, names),
	}, workflows.RedriveIssuance, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil // completed already: its recipients have their outcomes
	}
	if err != nil {
		return fmt.Errorf("start workflow: %w", err)
	}
	return nil
}

// RedriveResult is what a re-drive did (the output of `badged admin issuance redrive`, and the redrive Update's
// answer).
type RedriveResult = activities.RedriveResult

// Redrive re-drives the FAILED recipients of a finished issuance whose errorCode is of a retryable class in the
// retry policy, outside the issuance workflow: the path for an issuance whose workflow has closed (RedriveIssuance
// in redrive_update.go sends the workflow's redrive Update while it is open). activities.PrepareRedrive puts them
// back into the pipeline and records run n in one transaction; then workflow "<issuance workflow id>/redrive-<n>"
// is started.
//
// Idempotent: while the latest run still has PROCESSING recipients, nothing new is reset or debited and that
// run's workflow is started again (USE_EXISTING finds it running; a failed one is restarted). A run takes at most
// workflows.MaxRedriveRecipients recipients; the next invocation after it finished takes the next ones.
func Redrive(ctx context.Context, d *db.DB, policy *retrypolicy.Policy, start RedriveStarter, issID uuid.UUID) (RedriveResult, error) {
	plan, err := activities.PrepareRedrive(ctx, d, policy, issID, workflows.MaxRedriveRecipients)
	if err != nil {
		return RedriveResult{}, err
	}
	out, iss, run := plan.Result, plan.Issuance, plan.Run
	log := slog.Default().With("issuanceId", issID.String(), "issuanceWorkflowId", iss.WorkflowID)
	if run == nil {
		log.InfoContext(ctx, "issuance redrive: nothing to re-drive", "skipped", out.SkippedByCode)
		return out, nil
	}
	log = log.With("workflowId", run.WorkflowID, "run", run.N)
	if err := start(ctx, iss, run.WorkflowID, workflows.RedriveInput{IssuanceID: issID, AssertionIDs: run.AssertionIds}); err != nil {
		log.ErrorContext(ctx, "issuance redrive: start workflow", "err", err)
		return out, fmt.Errorf("issuance redrive: recipients reset (run %d) but the workflow did not start; run the command again: %w", run.N, err)
	}
	out.Started = true
	log.InfoContext(ctx, "issuance redrive started", "recipients", len(run.AssertionIds), "created", out.Created,
		"creditsDebited", out.CreditsDebited)
	return out, nil
}
