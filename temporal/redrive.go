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

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/errcode"
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

// RedriveResult is what a re-drive did (the output of `badged admin issuance redrive`).
type RedriveResult struct {
	IssuanceID string `json:"issuanceId"`
	Run        int    `json:"run,omitempty"` // 0: nothing to re-drive
	WorkflowID string `json:"workflowId,omitempty"`
	// Created is true when this invocation reset recipients and debited credits; false when it only (re)started
	// the unfinished run of an earlier invocation, or found nothing to do.
	Created        bool           `json:"created"`
	Started        bool           `json:"started"` // the run's workflow was started or found running
	AssertionIDs   []string       `json:"assertionIds"`
	CreditsDebited int            `json:"creditsDebited"`
	SkippedByCode  map[string]int `json:"skippedByCode"` // failed recipients with a permanent code, not re-driven
	Remaining      int            `json:"remaining"`     // retryable failures left for a later run
}

// Redrive re-drives the FAILED recipients of a finished issuance whose errorCode is of a retryable class
// in the retry policy: in one transaction they go back to PROCESSING at the step they had reached, their live
// credits are debited again (FinishAssertion refunded them; the whole run is refused when credits are short), and
// the run is recorded as issuance_redrive_runs n; then workflow "<issuance workflow id>/redrive-<n>" is started.
//
// Idempotent: while the latest run still has PROCESSING recipients, nothing new is reset or debited and that
// run's workflow is started again (USE_EXISTING finds it running; a failed one is restarted). A run takes at most
// workflows.MaxRedriveRecipients recipients; the next invocation after it finished takes the next ones.
// actor is who asked (the credit ledger's actor of the run's debit).
func Redrive(ctx context.Context, d *db.DB, policy *retrypolicy.Policy, start RedriveStarter, issID uuid.UUID,
	actor string) (RedriveResult, error) {
	out := RedriveResult{IssuanceID: issID.String(), AssertionIDs: []string{}, SkippedByCode: map[string]int{}}
	var iss db.Issuance
	var run *db.IssuanceRedriveRun
	err := d.InTx(ctx, func(q *db.Queries) error {
		var err error
		iss, err = q.LockIssuance(ctx, issID)
		if db.IsNotFound(err) {
			return fmt.Errorf("no issuance %s", issID)
		}
		if err != nil {
			return fmt.Errorf("lock issuance: %w", err)
		}
		if iss.ProcessingStatus == string(db.IssuanceProcessing) {
			return fmt.Errorf("issuance %s is still processing; re-drive it once its workflow has finished", issID)
		}
		latest, err := q.GetLatestRedrive(ctx, issID)
		if err != nil && !db.IsNotFound(err) {
			return fmt.Errorf("read redrive runs: %w", err)
		}
		if err == nil {
			busy, err := q.CountProcessingOf(ctx, latest.AssertionIds)
			if err != nil {
				return fmt.Errorf("count processing: %w", err)
			}
			if busy > 0 {
				run = &latest
				return nil
			}
		}
		failed, err := q.ListFailedOfIssuance(ctx, issID)
		if err != nil {
			return fmt.Errorf("list failed: %w", err)
		}
		var ids []uuid.UUID
		live := 0
		for _, f := range failed {
			var code errcode.Code
			if f.ErrorCode != nil {
				code = errcode.Code(*f.ErrorCode)
			}
			if !policy.Classes[policy.ClassOf(code)].Retryable {
				out.SkippedByCode[string(code)]++
				continue
			}
			if len(ids) == workflows.MaxRedriveRecipients {
				out.Remaining++
				continue
			}
			ids = append(ids, f.ID)
			if f.Mode == apikey.ModeLive {
				live++
			}
		}
		if len(ids) == 0 {
			return nil
		}
		if live > 0 {
			_, err := q.DebitCredits(ctx, db.DebitCreditsParams{ID: iss.OrgID, Debit: int64(live), Serials: 0,
				Kind: "redrive", IssuanceID: &iss.ID, Actor: &actor})
			if db.IsNotFound(err) {
				return fmt.Errorf("organization %s has fewer than the %d credits the re-drive needs", iss.OrgID, live)
			}
			if err != nil {
				return fmt.Errorf("debit credits: %w", err)
			}
		}
		if _, err := q.ResetForRedrive(ctx, ids); err != nil {
			return fmt.Errorf("reset recipients: %w", err)
		}
		n := int(latest.N) + 1 // latest is the zero value when there is no earlier run
		created, err := q.CreateRedrive(ctx, db.CreateRedriveParams{IssuanceID: issID, N: int32(n),
			WorkflowID: workflows.RedriveWorkflowID(iss.WorkflowID, n), AssertionIds: ids, CreditsDebited: int32(live)})
		if err != nil {
			return fmt.Errorf("record redrive: %w", err)
		}
		run, out.Created = &created, true
		return nil
	})
	if err != nil {
		return RedriveResult{}, fmt.Errorf("issuance redrive: %w", err)
	}
	log := slog.Default().With("issuanceId", issID.String(), "issuanceWorkflowId", iss.WorkflowID)
	if run == nil {
		log.InfoContext(ctx, "issuance redrive: nothing to re-drive", "skipped", out.SkippedByCode)
		return out, nil
	}
	out.Run, out.WorkflowID = int(run.N), run.WorkflowID
	out.CreditsDebited = int(run.CreditsDebited)
	for _, a := range run.AssertionIds {
		out.AssertionIDs = append(out.AssertionIDs, a.String())
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
