package activities

import (
	"time"

	"github.com/google/uuid"
)

// Pipeline steps of one recipient, in order; the assertion's step column holds the last one completed.
// StepPublished keeps the value "UPLOADED", the publish step's old name: assertions' step column holds it
// (SetAssertionsPublished writes it) and workflow histories carry it (RecipientRef.Step, Outcome.Stage), where a
// replay must read the value it recorded.
const (
	StepPending   = "PENDING"
	StepChecked   = "CHECKED"
	StepSigned    = "SIGNED"
	StepAnchored  = "ANCHORED"
	StepBaked     = "BAKED"
	StepPublished = "UPLOADED"
	StepNotified  = "NOTIFIED"
	StepDone      = "DONE"
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

// StepBatch names the recipients of one issuance that a pipeline step runs on, all at the same attempt of that
// step: the workflow retries the recipients that failed together, after the delay their failure class asks for.
type StepBatch struct {
	IssuanceID uuid.UUID
	Assertions []uuid.UUID
	Attempt    int // 1 on the first try of the step
}

// StepResult lists the recipients of a StepBatch that the step could not complete, each with its errorCode and
// the retry policy's decision. Every other recipient completed the step, now or in an earlier attempt.
type StepResult struct {
	Failed []StepFailure `json:",omitempty"`
}

// StepFailure is one recipient's failed attempt at a step.
type StepFailure struct {
	AssertionID uuid.UUID
	Code        string        // the assertion errorCode
	Retry       bool          // the code's class allows another attempt
	Delay       time.Duration // how long to wait before it, from the class's backoff
	// Policy is the retry table's rule the worker applied to Code ("remote: 5s ×2 up to 5m0s, 10 attempts"), for the
	// workflow's details; empty in results recorded before it was added.
	Policy string `json:",omitempty"`
}

// FinishBatch records the outcomes of recipients of one issuance.
type FinishBatch struct {
	IssuanceID uuid.UUID
	Outcomes   []Outcome
}

// Outcome is how one recipient's pipeline ended: ErrorCode is empty on success, Stage the step that failed.
type Outcome struct {
	AssertionID uuid.UUID
	ErrorCode   string
	Stage       string
}

// Tally counts recipients that have an outcome: in all, by final state, and by errorCode where they have one.
// FinishAssertions answers one for the outcomes it recorded; batches and issuances add theirs up.
type Tally struct {
	Finished     int
	ByState      map[string]int
	FailedByCode map[string]int
}

// NewTally returns an empty tally.
func NewTally() Tally { return Tally{ByState: map[string]int{}, FailedByCode: map[string]int{}} }

// Count adds n recipients in state with code ("" when they have none).
func (t *Tally) Count(state, code string, n int) {
	t.Finished += n
	t.ByState[state] += n
	if code != "" {
		t.FailedByCode[code] += n
	}
}

// Add adds another tally's recipients.
func (t *Tally) Add(o Tally) {
	t.Finished += o.Finished
	for k, n := range o.ByState {
		t.ByState[k] += n
	}
	for k, n := range o.FailedByCode {
		t.FailedByCode[k] += n
	}
}

// CompleteIssuanceInput closes an issuance: COMPLETED, or FAILED with the reason when the run as a whole failed.
type CompleteIssuanceInput struct {
	IssuanceID uuid.UUID
	Failure    string
}

// assertionSubject names one recipient in the logs: its assertion and issuance.
type assertionSubject struct{ assertion, issuance uuid.UUID }

func (r assertionSubject) logAttrs() []any {
	return []any{"assertionId", r.assertion, "issuanceId", r.issuance}
}
