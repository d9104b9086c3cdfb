package workflows

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// The issuance workflow re-drives its own retryable failures when asked by the Update RedriveUpdate: from the
// Temporal UI's "Send an Update", `temporal workflow update execute --name redrive`, the UI server's HTTP API, or
// `badged admin issuance redrive` and the console (temporal.RedriveIssuance). To be there to be asked, a run whose
// pipeline left redrivable failures stays open for its input's RedriveWindow (Stage awaiting-redrive), then
// completes; a run without any completes at once, as before. Runs take this from redriveUpdateChange on.
const redriveUpdateChange = "redrive-update"

// RedriveUpdate is the name of the issuance workflow's Update that re-drives its redrivable failures. It takes no
// argument and answers an activities.RedriveResult once the run's workflow has started (not finished: follow it in
// its own workflow, "<issuance workflow id>/redrive-<n>", a child of the issuance).
const RedriveUpdate = "redrive"

// The issuance's Stage after its pipeline when redrivable failures remain, and while a re-drive it started runs.
const (
	StageAwaitingRedrive = "awaiting-redrive"
	StageRedriving       = "redriving"
)

// DefaultRedriveWindow is how long an issuance workflow waits for a re-drive when the starter names no window.
const DefaultRedriveWindow = 24 * time.Hour

// refused is the Update's refusal, its message saying why, as Temporal carries it (activities.RedriveRefusal's
// Failure, the type the database step's refusals have), so a caller across the wire (temporal.Redriver, the
// console) tells "refused, and why" from a failure. The validator's refusals are never written to the history.
func refused(format string, args ...any) error {
	return (&activities.RedriveRefusal{Reason: fmt.Sprintf(format, args...)}).Failure()
}

// redriveState is what the issuance workflow knows for its redrive Update. Only the workflow's own code changes
// it, from activity results, so the validator's decisions replay alike.
type redriveState struct {
	finished   bool   // the pipeline ended and the issuance's failures were read (GetRedriveStatus)
	closing    bool   // the window ended: the workflow completes once the handlers are done
	running    string // the re-drive in progress: its workflow id, or "(preparing)" before it has one
	redrivable int    // FAILED recipients whose errorCode the retry table calls redrivable, and those left PROCESSING
	failed     map[string]int
	until      time.Time // end of the current window, for the operator's details
}

// refusal is the validator's decision: nil when a re-drive may run now, else why not. It decides from the
// workflow's state only; which codes are redrivable was decided by the retry table in GetRedriveStatus
// (retrypolicy.Policy.Redrivable), the one place every re-drive path decides it.
func (s *redriveState) refusal() error {
	switch {
	case !s.finished:
		return refused("the issuance is still running its pipeline; re-drive its failures once it has finished "+
			"(Stage %q)", StageAwaitingRedrive)
	case s.running != "":
		return refused("a re-drive is running (%s); send the Update again once it has finished", s.running)
	case s.closing:
		return refused("the re-drive window has closed; run `badged admin issuance redrive`")
	case s.redrivable == 0:
		return refused("nothing to re-drive: no FAILED recipient has an errorCode the retry table calls retryable%s",
			failedList(s.failed))
	}
	return nil
}

// failedList names the FAILED recipients by errorCode for a refusal: " (FAILED: DUPLICATE_ISSUANCE ×2)".
func failedList(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", c, m[c]))
	}
	return " (FAILED: " + strings.Join(parts, ", ") + ")"
}

// read sets the state from the issuance's failures as Postgres has them, and the issuance's tally with them.
func (s *redriveState) read(ctx workflow.Context, in IssueBadgeInput, p *Progress) error {
	var st activities.RedriveStatus
	lctx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	if err := workflow.ExecuteLocalActivity(lctx, a.GetRedriveStatus, in.IssuanceID).Get(ctx, &st); err != nil {
		return err
	}
	s.finished, s.redrivable, s.failed = true, st.Redrivable, st.FailedByCode
	p.Tally = st.Tally
	return nil
}

// handle is the Update's handler: the database part of the re-drive (activities.PrepareRedrive, as every path
// does it), then run n's RedriveIssuance as a child with the id that run recorded. It answers once the child has
// started; the workflow follows the child (follow) and reads its failures again when it ends.
func (s *redriveState) handle(ctx workflow.Context, in IssueBadgeInput, p *Progress, observe func(string)) (activities.RedriveResult, error) {
	// The validator ran before, but two Updates accepted in one workflow task both pass it before either runs.
	if err := s.refusal(); err != nil {
		return activities.RedriveResult{}, err
	}
	s.running = "(preparing)"
	observe(StageRedriving)
	var run activities.RedriveRun
	lctx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	err := workflow.ExecuteLocalActivity(lctx, a.PrepareRedriveRun,
		activities.PrepareRedriveInput{IssuanceID: in.IssuanceID, Max: MaxRedriveRecipients}).Get(ctx, &run)
	if err != nil || run.Result.Run == 0 {
		s.running = ""
		if rerr := s.read(ctx, in, p); rerr != nil && err == nil {
			err = rerr
		}
		return run.Result, err
	}
	res := run.Result
	s.running = res.WorkflowID
	co := workflow.ChildWorkflowOptions{WorkflowID: res.WorkflowID, TypedSearchAttributes: workflow.GetTypedSearchAttributes(ctx),
		StaticSummary: fmt.Sprintf("Re-drive %d of issuance %s · %s recipients (Update %q)", res.Run, in.IssuanceID,
			Count(len(run.AssertionIDs)), RedriveUpdate),
		StaticDetails: fmt.Sprintf("Re-drive run %d of issuance `%s` (workflow `%s`), started by its `%s` Update.\n\n"+
			"Inspect the issuance: `badged admin issuance inspect %s`\n", res.Run, in.IssuanceID,
			workflow.GetInfo(ctx).WorkflowExecution.ID, RedriveUpdate, in.IssuanceID),
	}
	child := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, co), RedriveIssuance,
		RedriveInput{IssuanceID: in.IssuanceID, AssertionIDs: run.AssertionIDs, Total: in.RecipientCount})
	if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		s.running = ""
		return res, fmt.Errorf("re-drive run %d reset its recipients but its workflow %s did not start; send the Update again: %w",
			res.Run, res.WorkflowID, err)
	}
	res.Started = true
	workflow.Go(ctx, func(ctx workflow.Context) { s.follow(ctx, in, p, child, res.WorkflowID) })
	return res, nil
}

// follow waits for the re-drive child, then reads the issuance's failures again: the window starts over when
// redrivable ones remain (a run takes at most MaxRedriveRecipients; a code may fail again).
func (s *redriveState) follow(ctx workflow.Context, in IssueBadgeInput, p *Progress, child workflow.ChildWorkflowFuture, id string) {
	log := workflow.GetLogger(ctx)
	if err := child.Get(ctx, nil); err != nil {
		// Its recipients stay PROCESSING: GetRedriveStatus counts them redrivable, and the next re-drive restarts
		// the same run (PrepareRedrive returns it while it has PROCESSING recipients).
		log.Error("re-drive failed", "workflowId", id, "error", err)
	}
	if err := s.read(ctx, in, p); err != nil {
		log.Error("read the issuance's failures after a re-drive", "error", err)
	}
	s.running = ""
}

// await keeps the workflow open while redrivable failures remain: a window of in.RedriveWindow from the end of
// the pipeline, and again from the end of each re-drive. It returns once the window passed without a re-drive or
// nothing redrivable is left, and every Update handler has finished.
func (s *redriveState) await(ctx workflow.Context, window time.Duration, observe func(string)) error {
	for s.redrivable > 0 {
		s.until = workflow.Now(ctx).Add(window)
		observe(StageAwaitingRedrive)
		started, err := workflow.AwaitWithTimeout(ctx, window, func() bool { return s.running != "" })
		if err != nil {
			return err
		}
		if !started {
			break
		}
		if err := workflow.Await(ctx, func() bool { return s.running == "" }); err != nil {
			return err
		}
	}
	s.closing = true
	return workflow.Await(ctx, func() bool { return s.running == "" && workflow.AllHandlersFinished(ctx) })
}

// details is the note under the current details while the workflow waits for a re-drive.
func (s *redriveState) details(stage string) string {
	switch stage {
	case StageAwaitingRedrive:
		return fmt.Sprintf("\n%s recipients can be re-driven until %s UTC: send the Update `%s` (no input), or run "+
			"`badged admin issuance redrive`.\n", Count(s.redrivable), s.until.UTC().Format(time.DateTime), RedriveUpdate)
	case StageRedriving:
		return fmt.Sprintf("\nRe-drive running: %s\n", s.running)
	}
	return ""
}
