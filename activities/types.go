package activities

import "github.com/google/uuid"

// Pipeline steps of one recipient, in order; the assertion's step column holds the last one completed.
const (
	StepPending  = "PENDING"
	StepChecked  = "CHECKED"
	StepSigned   = "SIGNED"
	StepAnchored = "ANCHORED"
	StepBaked    = "BAKED"
	StepUploaded = "UPLOADED"
	StepNotified = "NOTIFIED"
	StepDone     = "DONE"
)

// RecipientRef is what the workflow knows of one recipient: ids and progress, never personal data.
type RecipientRef struct {
	AssertionID uuid.UUID
	Seq         int
	Step        string // last completed step
	Done        bool   // already has a final state (a re-run skips it)
}

// LoadBatchInput selects the recipients of an issuance with FromSeq <= seq < ToSeq.
type LoadBatchInput struct {
	IssuanceID uuid.UUID
	FromSeq    int
	ToSeq      int
}

// LoadBatchResult lists them in seq order.
type LoadBatchResult struct {
	Recipients []RecipientRef
}

// StepInput names the assertion a pipeline step works on, and its issuance (for the logs).
type StepInput struct {
	AssertionID uuid.UUID
	IssuanceID  uuid.UUID
}

func (in StepInput) logAttrs() []any {
	return []any{"assertionId", in.AssertionID, "issuanceId", in.IssuanceID}
}

// FinishInput records a recipient's outcome. ErrorCode is empty on success. Stage is the step that failed.
type FinishInput struct {
	AssertionID uuid.UUID
	ErrorCode   string
	Stage       string
}

func (in FinishInput) logAttrs() []any { return []any{"assertionId", in.AssertionID} }

// FinishResult is the final state written.
type FinishResult struct {
	State     string
	ErrorCode string
}

// CompleteIssuanceInput closes an issuance: COMPLETED, or FAILED with the reason when the run as a whole failed.
type CompleteIssuanceInput struct {
	IssuanceID uuid.UUID
	Failure    string
}

// AnchorBatchInput names the recipients FromSeq <= seq < ToSeq of an issuance whose signed credentials are
// anchored together in one transaction.
type AnchorBatchInput struct {
	IssuanceID uuid.UUID
	FromSeq    int
	ToSeq      int
}

func (in AnchorBatchInput) logAttrs() []any {
	return []any{"issuanceId", in.IssuanceID, "fromSeq", in.FromSeq, "toSeq", in.ToSeq}
}
