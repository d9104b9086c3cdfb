package activities

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/webhook"
)

// LoadBatch lists the recipients of a batch with their progress, so a re-run resumes where each one stopped.
// The recipients of a large issuance are staged (stage.go): their assertions are written here first.
func (a *Activities) LoadBatch(ctx context.Context, in LoadBatchInput) (LoadBatchResult, error) {
	if err := a.materialize(ctx, in.IssuanceID, in.FromSeq, in.ToSeq); err != nil {
		return LoadBatchResult{}, fmt.Errorf("load batch: %w", err)
	}
	rows, err := a.DB.ListBatch(ctx, db.ListBatchParams{IssuanceID: in.IssuanceID, FromSeq: int32(in.FromSeq), ToSeq: int32(in.ToSeq)})
	if err != nil {
		return LoadBatchResult{}, fmt.Errorf("load batch: %w", err)
	}
	out := LoadBatchResult{Recipients: make([]RecipientRef, len(rows))}
	for i, r := range rows {
		out.Recipients[i] = RecipientRef{AssertionID: r.ID, Seq: int(r.Seq), Step: r.Step, Done: r.State != string(db.AssertionProcessing)}
	}
	return out, nil
}

// FinishAssertions writes each recipient's outcome once and refunds the credit of a live recipient that failed:
//   - success → RECEIVED (v3 issuance) or ISSUED (v2);
//   - failed while notifying → ISSUED with the notification code (the credential exists, it was not delivered);
//   - failed before → FAILED with the code.
//
// A recipient that already has an outcome (a retried call) keeps it; the result counts the outcomes as stored.
func (a *Activities) FinishAssertions(ctx context.Context, in FinishBatch) (Tally, error) {
	ids := make([]uuid.UUID, len(in.Outcomes))
	byID := make(map[uuid.UUID]Outcome, len(in.Outcomes))
	for i, o := range in.Outcomes {
		ids[i], byID[o.AssertionID] = o.AssertionID, o
	}
	out := NewTally()
	var written []db.ListOutcomeInputsRow // outcomes this call wrote: counted in metrics once, not on a retry
	var replaced []db.ReplaceOriginalsRow // originals this call turned REISSUED
	err := a.DB.InTx(ctx, func(q *db.Queries) error {
		rows, err := q.ListOutcomeInputs(ctx, ids)
		if err != nil {
			return err
		}
		update := db.FinishAssertionsParams{}
		refunds := map[uuid.UUID]int32{}
		for _, r := range rows {
			if r.State == string(db.AssertionProcessing) {
				o := byID[r.ID]
				r.State, r.ErrorCode = string(outcomeState(int(r.ApiVersion), o)), nil
				if o.ErrorCode != "" {
					r.ErrorCode = &o.ErrorCode
				}
				update.Ids = append(update.Ids, r.ID)
				update.States = append(update.States, r.State)
				update.Codes = append(update.Codes, o.ErrorCode)
				written = append(written, r)
				if r.State == string(db.AssertionFailed) && r.Mode == apikey.ModeLive {
					refunds[r.OrgID]++
				}
			}
			out.Count(r.State, deref(r.ErrorCode), 1)
		}
		if _, err := q.FinishAssertions(ctx, update); err != nil {
			return err
		}
		if replaced, err = replaceOriginals(ctx, q, update.Ids); err != nil {
			return err
		}
		for org, n := range refunds {
			if err := q.RefundCredits(ctx, db.RefundCreditsParams{ID: org, N: n, IssuanceID: in.IssuanceID}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Tally{}, fmt.Errorf("finish assertions of issuance %s: %w", in.IssuanceID, err)
	}
	for _, r := range written {
		code := deref(r.ErrorCode)
		a.Metrics.RecipientsFinished(r.State, code, 1)
		a.Metrics.GaveUp(giveUpStep(byID[r.ID].Stage), code, 1)
		a.logger(ctx, assertionSubject{r.ID, in.IssuanceID}).InfoContext(ctx, "recipient finished", "state", r.State,
			"errorCode", code, "stage", byID[r.ID].Stage)
	}
	for _, o := range replaced {
		a.logger(ctx, assertionSubject{o.ID, o.IssuanceID}).InfoContext(ctx, "assertion reissued", "replacementId", o.ReplacementID)
	}
	return out, nil
}

// replaceOriginals turns the originals of the reissue replacements among ids that were just issued REISSUED and
// sets their status bits (revocation purpose, as a cancel does), in the transaction that records the replacements'
// outcome: a verifier never sees both valid for long, and never neither. A replacement that FAILED leaves its
// original as it was: the recipient keeps a valid credential.
func replaceOriginals(ctx context.Context, q *db.Queries, ids []uuid.UUID) ([]db.ReplaceOriginalsRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := q.ReplaceOriginals(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("replace originals: %w", err)
	}
	for _, o := range rows {
		if o.StatusListID != nil && o.StatusListIndex != nil {
			if err := issuer.Revoke(ctx, q, *o.StatusListID, int(*o.StatusListIndex)); err != nil {
				return nil, fmt.Errorf("set status bit of reissued %s: %w", o.ID, err)
			}
		}
		original := db.Assertion{ID: o.ID, OrgID: o.OrgID, IssuanceID: o.IssuanceID, BadgeID: o.BadgeID,
			ProgramID: o.ProgramID, Mode: o.Mode, State: o.State, ErrorCode: o.ErrorCode}
		if o.Renewal {
			if err := webhook.RecordAssertionRenewed(ctx, q, original, o.ReplacementID); err != nil {
				return nil, fmt.Errorf("record assertion.renewed of %s: %w", o.ID, err)
			}
			continue
		}
		if err := webhook.RecordAssertionReissued(ctx, q, original, o.ReplacementID); err != nil {
			return nil, fmt.Errorf("record assertion.reissued of %s: %w", o.ID, err)
		}
	}
	return rows, nil
}

// outcomeState is the final state of a recipient that leaves the pipeline with outcome o.
func outcomeState(apiVersion int, o Outcome) db.AssertionState {
	switch {
	case o.ErrorCode == "" && apiVersion == 2:
		return db.AssertionIssued
	case o.ErrorCode == "":
		return db.AssertionReceived
	case o.Stage == StepNotified:
		return db.AssertionIssued
	}
	return db.AssertionFailed
}

// CompleteIssuance marks the issuance COMPLETED, or FAILED when the run as a whole failed; in that case every
// recipient still PROCESSING is failed with INTERNAL_SERVER_ERROR and refunded, so none is left stuck.
func (a *Activities) CompleteIssuance(ctx context.Context, in CompleteIssuanceInput) error {
	status := db.IssuanceCompleted
	var failure *string
	if in.Failure != "" {
		status, failure = db.IssuanceFailed, &in.Failure
	}
	closed := false // this attempt closed the issuance: counted once, not again on a retry
	var failed int64
	err := a.DB.InTx(ctx, func(q *db.Queries) error {
		if in.Failure != "" {
			var err error
			if failed, err = q.FailRemainingAssertions(ctx, in.IssuanceID); err != nil {
				return err
			}
		}
		iss, err := q.SetIssuanceStatus(ctx, db.SetIssuanceStatusParams{ID: in.IssuanceID, ProcessingStatus: string(status), Failure: failure})
		if db.IsNotFound(err) {
			return nil // already closed by an earlier attempt
		}
		if err != nil {
			return err
		}
		closed = true
		// issuance.completed/failed joins the outbox in this transaction: sent if and only if the close commits.
		// Its delivery runs in workflows of its own; this issuance never waits for it.
		return webhook.RecordIssuanceClosed(ctx, q, iss)
	})
	if err == nil && closed {
		a.Metrics.IssuanceFinished(string(status))
		a.Metrics.RecipientsFinished(string(db.AssertionFailed), string(errcode.InternalServerError), int(failed))
		a.Metrics.GaveUp(metrics.StepIssuance, string(errcode.InternalServerError), int(failed))
	}
	return err
}

// giveUpSteps name an outcome's Stage (the step the recipient failed at, as the workflow records it) the way
// runStep's metrics name the step, so give-ups line up with attempts and retries on the dashboard.
var giveUpSteps = map[string]string{StepChecked: "check", StepSigned: "sign", StepAnchored: "anchor", StepBaked: "bake",
	StepPublished: publishMetricStep, StepNotified: "notify"}

func giveUpStep(stage string) string {
	if s, ok := giveUpSteps[stage]; ok {
		return s
	}
	return metrics.StepIssuance // a failure outside the pipeline's steps (no stage recorded)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
