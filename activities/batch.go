package activities

import (
	"context"
	"fmt"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/errcode"
)

// LoadBatch lists the recipients of a batch with their progress, so a re-run resumes where each one stopped.
func (a *Activities) LoadBatch(ctx context.Context, in LoadBatchInput) (LoadBatchResult, error) {
	rows, err := a.DB.ListBatch(ctx, db.ListBatchParams{IssuanceID: in.IssuanceID, FromSeq: int32(in.FromSeq), ToSeq: int32(in.ToSeq)})
	if err != nil {
		return LoadBatchResult{}, fmt.Errorf("load batch: %w", err)
	}
	out := LoadBatchResult{Recipients: make([]RecipientRef, len(rows))}
	for i, r := range rows {
		out.Recipients[i] = RecipientRef{AssertionID: r.ID, Seq: int(r.Seq), Step: r.Step, Done: r.State != "PROCESSING"}
	}
	return out, nil
}

// FinishAssertion writes a recipient's outcome once and refunds the credit of a live recipient that failed:
//   - success → RECEIVED (v3 issuance) or ISSUED (v2);
//   - failed while notifying → ISSUED with the notification code (the credential exists, it was not delivered);
//   - failed before → FAILED with the code.
func (a *Activities) FinishAssertion(ctx context.Context, in FinishInput) (FinishResult, error) {
	cur, err := a.DB.GetAssertionByID(ctx, in.AssertionID)
	if err != nil {
		return FinishResult{}, fmt.Errorf("load assertion: %w", err)
	}
	state := "RECEIVED"
	if cur.ApiVersion == 2 {
		state = "ISSUED"
	}
	switch {
	case in.ErrorCode == "":
	case in.Stage == StepNotified:
		state = "ISSUED"
	default:
		state = "FAILED"
	}
	var code *string
	if in.ErrorCode != "" {
		code = &in.ErrorCode
	}
	var out FinishResult
	fresh := false // this attempt wrote the outcome: counted once, not again on a retry
	err = a.DB.InTx(ctx, func(q *db.Queries) error {
		row, err := q.FinishAssertion(ctx, db.FinishAssertionParams{ID: in.AssertionID, State: state, ErrorCode: code})
		if db.IsNotFound(err) {
			// Already finished by an earlier attempt: report what is stored.
			prev, err := q.GetAssertionOutcome(ctx, in.AssertionID)
			out = FinishResult{State: prev.State, ErrorCode: deref(prev.ErrorCode)}
			return err
		}
		if err != nil {
			return err
		}
		out, fresh = FinishResult{State: row.State, ErrorCode: deref(row.ErrorCode)}, true
		if row.State == "FAILED" && row.Mode == "live" {
			return q.RefundCredit(ctx, row.OrgID)
		}
		return nil
	})
	if err != nil {
		return FinishResult{}, fmt.Errorf("finish assertion %s: %w", in.AssertionID, err)
	}
	if fresh {
		a.Metrics.RecipientsFinished(out.State, out.ErrorCode, 1)
	}
	a.logger(ctx, in).InfoContext(ctx, "recipient finished", "state", out.State,
		"errorCode", out.ErrorCode, "stage", in.Stage)
	return out, nil
}

// CompleteIssuance marks the issuance COMPLETED, or FAILED when the run as a whole failed; in that case every
// recipient still PROCESSING is failed with INTERNAL_SERVER_ERROR and refunded, so none is left stuck.
func (a *Activities) CompleteIssuance(ctx context.Context, in CompleteIssuanceInput) error {
	status := "COMPLETED"
	var failure *string
	if in.Failure != "" {
		status, failure = "FAILED", &in.Failure
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
		_, err := q.SetIssuanceStatus(ctx, db.SetIssuanceStatusParams{ID: in.IssuanceID, ProcessingStatus: status, Failure: failure})
		if db.IsNotFound(err) {
			return nil // already closed by an earlier attempt
		}
		closed = err == nil
		return err
	})
	if err == nil && closed {
		a.Metrics.IssuanceFinished(status)
		a.Metrics.RecipientsFinished("FAILED", string(errcode.InternalServerError), int(failed))
	}
	return err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
