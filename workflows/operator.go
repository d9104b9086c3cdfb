package workflows

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// What the operator sees in the Temporal UI (docs/operators.md, "The Temporal UI"): search attributes that find
// trouble, the current details of a run, a summary on every child and activity. All of it is workflow code, so a run
// takes it only from operatorViewChange on; a run started before keeps its old commands (replay test).
const operatorViewChange = "operator-view"

// Search attributes kept current by the workflows, at stage boundaries only: a batch upserts at most once per stage
// (seven) and the issuance once per batch, so a 100,000-recipient run stays far inside its history budget.
var (
	StageKey       = temporal.NewSearchAttributeKeyKeyword("Stage")
	StageSinceKey  = temporal.NewSearchAttributeKeyTime("StageSince")
	IssuedCountKey = temporal.NewSearchAttributeKeyInt64("IssuedCount")
	FailedCountKey = temporal.NewSearchAttributeKeyInt64("FailedCount")
	FailedCodesKey = temporal.NewSearchAttributeKeyKeywordList("FailedCodes")
	ModeKey        = temporal.NewSearchAttributeKeyKeyword("Mode")
)

// The values of Stage. A batch (and a re-drive) is at the stage of the earliest step any of its unfinished recipients
// has still to run, which only moves forward; the issuance is accepted until its batches start, signing while they
// run (their own Stage says where), and done at the end.
const (
	StageAccepted   = "accepted"
	StageSigning    = "signing"
	StageAnchoring  = "anchoring"
	StageBaking     = "baking"
	StagePublishing = "publishing"
	StageNotifying  = "notifying"
	StageDone       = "done"
)

// failedState is db.AssertionFailed (workflows may not import db): the final state of a recipient that got no
// credential. Other codes in a tally (a notification that failed) belong to issued credentials.
const failedState = "FAILED"

// issuedCount and failedCount split a tally the way the search attributes count it.
func issuedCount(t activities.Tally) int { return t.Finished - t.ByState[failedState] }
func failedCount(t activities.Tally) int { return t.ByState[failedState] }

// upsertProgress sets the operator's search attributes of the current run to stage and the counts of t; StageSince
// moves only when the stage is new, so "in anchoring for ten minutes" stays answerable while the counts move.
func upsertProgress(ctx workflow.Context, stage string, newStage bool, t activities.Tally) error {
	codes := slices.Sorted(maps.Keys(t.FailedByCode))
	if codes == nil {
		codes = []string{}
	}
	updates := []temporal.SearchAttributeUpdate{
		StageKey.ValueSet(stage),
		IssuedCountKey.ValueSet(int64(issuedCount(t))),
		FailedCountKey.ValueSet(int64(failedCount(t))),
		FailedCodesKey.ValueSet(codes),
	}
	if newStage {
		updates = append(updates, StageSinceKey.ValueSet(workflow.Now(ctx)))
	}
	return workflow.UpsertTypedSearchAttributes(ctx, updates...)
}

// progressDetails is the current-details Markdown of a run (the UI's workflow page): its stage, its recipients by
// final state, its failures by errorCode, and what is still running.
func progressDetails(title, stage string, total int, t activities.Tally, running []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · stage **%s** · %s of %s recipients finished\n\n", title, stage, Count(t.Finished), Count(total))
	if len(t.ByState) > 0 {
		b.WriteString("| state | recipients |\n|---|---|\n")
		for _, s := range slices.Sorted(maps.Keys(t.ByState)) {
			fmt.Fprintf(&b, "| %s | %s |\n", s, Count(t.ByState[s]))
		}
		b.WriteString("\n")
	}
	if len(t.FailedByCode) > 0 {
		b.WriteString("| errorCode | recipients |\n|---|---|\n")
		for _, c := range slices.Sorted(maps.Keys(t.FailedByCode)) {
			fmt.Fprintf(&b, "| `%s` | %s |\n", c, Count(t.FailedByCode[c]))
		}
		b.WriteString("\n")
	}
	if len(running) > 0 {
		fmt.Fprintf(&b, "Running: %s\n", strings.Join(running, ", "))
	}
	return b.String()
}

// Count writes n with thousands separators ("10,000"), as summaries show counts.
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// batchSummary is the one-line summary of an issuance's batch child: which recipients it runs.
func batchSummary(n, of int, in IssueBatchInput, total int) string {
	return fmt.Sprintf("Batch %s of %s · recipients %s–%s of %s · issuance %s", Count(n), Count(of),
		Count(in.FromSeq+1), Count(in.ToSeq), Count(total), in.IssuanceID)
}

// batchDetails is the Markdown of a batch child's details: its ids and how to inspect its issuance.
func batchDetails(parentID string, in IssueBatchInput) string {
	return fmt.Sprintf("Batch of issuance `%s` (workflow `%s`), recipients with seq %d ≤ seq < %d.\n\n"+
		"Inspect the issuance: `badged admin issuance inspect %s`\n", in.IssuanceID, parentID, in.FromSeq, in.ToSeq, in.IssuanceID)
}

// chunkSummary is an activity's one-line summary: the step and the recipients it runs ("sign 1,201–1,300 of
// 10,000"); seqs are the 0-based seqs of the group, total the recipients of the run's issuance (0: unknown).
func chunkSummary(verb string, seqs []int, total int) string {
	if len(seqs) == 0 {
		return verb
	}
	lo, hi := slices.Min(seqs), slices.Max(seqs)
	s := verb + " " + Count(lo+1)
	if hi > lo {
		s += "–" + Count(hi+1)
	}
	if total > 0 {
		s += " of " + Count(total)
	}
	if n := len(seqs); n != hi-lo+1 {
		s += " (" + Count(n) + " recipients)"
	}
	return s
}
