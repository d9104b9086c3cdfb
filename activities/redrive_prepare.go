package activities

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/retrypolicy"
)

// RedriveResult is what a re-drive did: the answer of the issuance workflow's redrive Update and the output of
// `badged admin issuance redrive`, whichever path ran it.
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

// RedriveWorkflowID is the id of an issuance's n-th re-drive run: a child of the issuance workflow when its
// redrive Update started it, a workflow of its own when `badged admin issuance redrive` did after the issuance
// workflow had closed.
func RedriveWorkflowID(issuanceWorkflowID string, n int) string {
	return issuanceWorkflowID + "/redrive-" + strconv.Itoa(n)
}

// RedrivePlan is what PrepareRedrive committed: the run to start (nil: nothing to re-drive) and the result so far.
type RedrivePlan struct {
	Issuance db.Issuance
	Run      *db.IssuanceRedriveRun
	Result   RedriveResult // Started is left false: starting the run is the caller's
}

// PrepareRedrive is the database part of a re-drive, shared by every path that re-drives: in one transaction the
// FAILED recipients of a finished issuance whose errorCode the retry table calls redrivable (Policy.Redrivable)
// go back to PROCESSING at the step they had reached, their live credits are debited again (FinishAssertion
// refunded them; the whole run is refused when credits are short), and the run is recorded as
// issuance_redrive_runs n with workflow id RedriveWorkflowID(issuance workflow id, n).
//
// Idempotent: while the latest run still has PROCESSING recipients, nothing new is reset or debited and that run
// is returned (Created false) for the caller to start again; so a retried activity, a repeated Update or a second
// command never debits twice. A run takes at most max recipients; the next invocation after it finished takes
// the next ones (Remaining counts them).
func PrepareRedrive(ctx context.Context, d *db.DB, policy *retrypolicy.Policy, issID uuid.UUID, max int) (RedrivePlan, error) {
	plan := RedrivePlan{Result: RedriveResult{IssuanceID: issID.String(), AssertionIDs: []string{}, SkippedByCode: map[string]int{}}}
	out := &plan.Result
	err := d.InTx(ctx, func(q *db.Queries) error {
		var err error
		plan.Issuance, err = q.LockIssuance(ctx, issID)
		if db.IsNotFound(err) {
			return refused("no issuance %s", issID)
		}
		if err != nil {
			return fmt.Errorf("lock issuance: %w", err)
		}
		iss := plan.Issuance
		if iss.ProcessingStatus == string(db.IssuanceProcessing) {
			return refused("issuance %s is still processing; re-drive it once its workflow has finished", issID)
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
				plan.Run = &latest
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
			code := storedCode(f.ErrorCode)
			if !policy.Redrivable(code) {
				out.SkippedByCode[string(code)]++
				continue
			}
			if len(ids) == max {
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
				Kind: "redrive", IssuanceID: &iss.ID}) // who asked is in the audit trail, not known here)
			if db.IsNotFound(err) {
				return refused("organization %s has fewer than the %d credits the re-drive needs", iss.OrgID, live)
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
			WorkflowID: RedriveWorkflowID(iss.WorkflowID, n), AssertionIds: ids, CreditsDebited: int32(live)})
		if err != nil {
			return fmt.Errorf("record redrive: %w", err)
		}
		plan.Run, out.Created = &created, true
		return nil
	})
	if err != nil {
		return RedrivePlan{}, fmt.Errorf("issuance redrive: %w", err)
	}
	if run := plan.Run; run != nil {
		out.Run, out.WorkflowID, out.CreditsDebited = int(run.N), run.WorkflowID, int(run.CreditsDebited)
		for _, a := range run.AssertionIds {
			out.AssertionIDs = append(out.AssertionIDs, a.String())
		}
	}
	return plan, nil
}

// ErrRedriveRefused matches every RedriveRefusal (errors.Is): the operator's to act on; anything else is a
// failure worth retrying.
var ErrRedriveRefused = errors.New("re-drive refused")

// ErrTypeRedriveRefused is the ApplicationError type of a refusal carried by Temporal (RedriveRefusal.Failure).
const ErrTypeRedriveRefused = "RedriveRefused"

// RedriveRefusal is a re-drive refused with its reason, by PrepareRedrive (no such issuance, still processing,
// credits short) or by the issuance workflow's redrive Update (a run going, nothing retryable, the window closed).
type RedriveRefusal struct{ Reason string }

func (e *RedriveRefusal) Error() string { return "re-drive refused: " + e.Reason }

// Is makes every refusal match ErrRedriveRefused.
func (e *RedriveRefusal) Is(target error) bool { return target == ErrRedriveRefused }

// Failure is the refusal as Temporal carries it (an activity's or an Update's answer): a non-retryable
// ApplicationError of type ErrTypeRedriveRefused with the reason in its details, which AsRedriveRefusal reads
// back on the other side of the wire.
func (e *RedriveRefusal) Failure() error {
	return temporal.NewNonRetryableApplicationError(e.Error(), ErrTypeRedriveRefused, nil, e.Reason)
}

// AsRedriveRefusal finds the refusal in err, made in this process or carried by Temporal (Failure).
func AsRedriveRefusal(err error) (*RedriveRefusal, bool) {
	var rf *RedriveRefusal
	if errors.As(err, &rf) {
		return rf, true
	}
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != ErrTypeRedriveRefused {
		return nil, false
	}
	var reason string
	if ae.HasDetails() && ae.Details(&reason) == nil {
		return &RedriveRefusal{Reason: reason}, true
	}
	return &RedriveRefusal{Reason: ae.Message()}, true
}

func refused(format string, args ...any) error {
	return &RedriveRefusal{Reason: fmt.Sprintf(format, args...)}
}

func storedCode(s *string) errcode.Code {
	if s == nil {
		return ""
	}
	return errcode.Code(*s)
}

// PrepareRedriveInput names the issuance whose redrive Update runs; Max bounds the run (MaxRedriveRecipients).
type PrepareRedriveInput struct {
	IssuanceID uuid.UUID
	Max        int
}

// PrepareRedriveRun is PrepareRedrive as the activity of the issuance workflow's redrive Update, with the worker's
// retry table. Its answer carries the run's assertion ids for the re-drive child.
func (a *Activities) PrepareRedriveRun(ctx context.Context, in PrepareRedriveInput) (RedriveRun, error) {
	plan, err := PrepareRedrive(ctx, a.DB, a.Policy, in.IssuanceID, in.Max)
	if rf, ok := AsRedriveRefusal(err); ok {
		// Not retried: another attempt would refuse alike, and the operator reads why in the Update's answer.
		return RedriveRun{}, rf.Failure()
	}
	if err != nil {
		return RedriveRun{}, err
	}
	out := RedriveRun{Result: plan.Result}
	if plan.Run != nil {
		out.AssertionIDs = plan.Run.AssertionIds
	}
	return out, nil
}

// RedriveRun is the answer of PrepareRedriveRun.
type RedriveRun struct {
	Result       RedriveResult
	AssertionIDs []uuid.UUID
}

// RedriveStatus is what the issuance workflow knows of its failures once its pipeline (or a re-drive) ended:
// recipients by state and errorCode as Postgres has them now, and how many a re-drive would take: the FAILED ones
// the retry table calls redrivable, and any a failed re-drive left PROCESSING.
type RedriveStatus struct {
	Tally      Tally
	Redrivable int
	// FailedByCode counts the FAILED recipients only (Tally.FailedByCode also counts issued credentials whose
	// notification failed), for the validator's reason.
	FailedByCode map[string]int
}

// GetRedriveStatus reads the issuance's RedriveStatus, classing each code with the worker's retry table.
func (a *Activities) GetRedriveStatus(ctx context.Context, issuanceID uuid.UUID) (RedriveStatus, error) {
	rows, err := a.DB.CountIssuanceOutcomes(ctx, issuanceID)
	if err != nil {
		return RedriveStatus{}, persistErr("redrive status", fmt.Errorf("issuance %s: %w", issuanceID, err))
	}
	out := RedriveStatus{Tally: NewTally(), FailedByCode: map[string]int{}}
	for _, r := range rows {
		if r.State == string(db.AssertionProcessing) {
			// Not finished: a re-drive whose workflow failed left them; the next re-drive restarts that run.
			out.Redrivable += int(r.N)
			continue
		}
		out.Tally.Count(r.State, r.ErrorCode, int(r.N))
		if r.State == string(db.AssertionFailed) {
			out.FailedByCode[r.ErrorCode] += int(r.N)
			if a.Policy.Redrivable(errcode.Code(r.ErrorCode)) {
				out.Redrivable += int(r.N)
			}
		}
	}
	return out, nil
}
