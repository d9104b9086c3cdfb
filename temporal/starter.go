package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/db"
	"github.com/badged/badged/workflows"
)

// Starter starts issuance workflows on a Temporal client: for the API right after an issuance commits, and for the
// Reconciler and `badged admin issuance start` when that start never happened.
type Starter struct {
	Client client.Client
	// DB, when set, names the badge and organization in the workflows' summaries (summary.go); BaseURL
	// (PUBLIC_BASE_URL) links the API's resources in their details. Both are optional.
	DB      *db.DB
	BaseURL string
	// RedriveWindow goes into every issuance workflow's input (REDRIVE_WINDOW): how long it stays open for its
	// redrive Update when its pipeline left retryable failures; 0 completes it at once.
	RedriveWindow time.Duration
}

// StartIssuance implements api.IssuanceStarter. The workflow id is derived from the idempotency scope; a running
// workflow with that id is reused (USE_EXISTING) and a closed one is never started again (REJECT_DUPLICATE), so
// replays, and concurrent identical requests, all end at one workflow.
func (s Starter) StartIssuance(ctx context.Context, iss db.Issuance) error {
	in := workflows.IssueBadgeInput{IssuanceID: iss.ID, OrgID: iss.OrgID, BadgeID: iss.BadgeID,
		APIVersion: int(iss.ApiVersion), RecipientCount: int(iss.AssertionCount), RedriveWindow: s.RedriveWindow}
	names := s.names(ctx, iss)
	_, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       iss.WorkflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes:    workflows.StartSearchAttributes(in, iss.Mode, time.Now()),
		Memo: map[string]any{"issuanceId": iss.ID.String(), "orgId": iss.OrgID.String(),
			"badgeId": iss.BadgeID.String(), "programId": iss.ProgramID.String(), "mode": iss.Mode,
			"recipients": iss.AssertionCount},
		StaticSummary: issuanceSummary(iss, names),
		StaticDetails: s.issuanceDetails(iss, names),
	}, workflows.IssueBadge, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil // the workflow ran to its end already; the issuance row has its outcome
	}
	if err != nil {
		return fmt.Errorf("start workflow: %w", err)
	}
	return nil
}

// WorkflowExists says whether the issuance's workflow was ever started (running or closed).
func (s Starter) WorkflowExists(ctx context.Context, iss db.Issuance) (bool, error) {
	_, err := s.Client.DescribeWorkflowExecution(ctx, iss.WorkflowID, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("describe workflow %s: %w", iss.WorkflowID, err)
	}
	return true, nil
}
