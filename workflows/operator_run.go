package workflows

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// runView is what a batch or re-drive run keeps for the operator (operator.go): where its recipients are, so its
// Stage search attribute and current details change at stage boundaries only, and their seqs for the activities'
// summaries.
type runView struct {
	title string            // the run, as its current details name it
	total int               // recipients of the issuance, for "sign 1–100 of 10,000"; 0 when unknown
	seq   map[uuid.UUID]int // each recipient's seq
	at    []int             // unfinished recipients by the pipeline step they have still to run (len(pipeline): none, only their outcome)
	stage string            // the Stage last upserted
	// retries is what the retry table did in this run, by step and errorCode: the SRE's view of the policy each
	// step actually ran with (the activity decides from the worker's table; the workflow sees the outcome).
	retries map[retryKey]*retryTally
}

type retryKey struct{ verb, code string }

// retryTally counts the failures of one step and code: retried (with the longest delay the class gave) or given up.
type retryTally struct {
	retried, gaveUp int
	maxDelay        time.Duration
	maxAttempt      int
	policy          string // the worker's rule for the code (StepFailure.Policy); "" in results recorded before it
}

func newRunView(title string, total int) *runView {
	return &runView{title: title, total: total, seq: map[uuid.UUID]int{}, at: make([]int, len(pipeline)+1),
		retries: map[retryKey]*retryTally{}}
}

// move counts n recipients that left step from for step to (-1: they finished), and notes a stage boundary.
func (r *runner) move(ctx workflow.Context, from, to, n int) {
	if r.view == nil || n == 0 {
		return
	}
	r.view.at[from] -= n
	if to >= 0 {
		r.view.at[to] += n
	}
	r.observe(ctx)
}

// observe upserts Stage and the counts when the earliest step with unfinished recipients changed (it only moves
// forward), and keeps the current details up to date. "done" is left to the end of the run, when every outcome is
// recorded.
func (r *runner) observe(ctx workflow.Context) {
	if r.view == nil {
		return
	}
	stage := StageDone
	for i, n := range r.view.at {
		if n > 0 {
			stage = StageNotifying // past the last step: only the outcome is left to record
			if i < len(pipeline) {
				stage = pipeline[i].stage
			}
			break
		}
	}
	if stage == StageDone || stage == r.view.stage {
		return
	}
	r.view.stage = stage
	r.details(ctx)
	if err := upsertProgress(ctx, stage, true, r.result); err != nil {
		workflow.GetLogger(ctx).Warn("upsert search attributes", "error", err)
	}
}

// done marks the end of the run for the operator.
func (r *runner) done(ctx workflow.Context) {
	if r.view == nil {
		return
	}
	r.view.stage = StageDone
	r.details(ctx)
	if err := upsertProgress(ctx, StageDone, true, r.result); err != nil {
		workflow.GetLogger(ctx).Warn("upsert search attributes", "error", err)
	}
}

func (r *runner) details(ctx workflow.Context) {
	workflow.SetCurrentDetails(ctx, progressDetails(r.view.title, r.view.stage, r.view.total, r.result, nil)+
		retryDetails(r.view.retries))
}

// noteFailures counts the per-recipient failures of one attempt of step st for the retry view, and refreshes the
// current details when there were any (no command: details are answered from memory).
func (r *runner) noteFailures(ctx workflow.Context, st step, attempt int, failed []activities.StepFailure) {
	if r.view == nil || len(failed) == 0 {
		return
	}
	for _, f := range failed {
		k := retryKey{st.verb, f.Code}
		t := r.view.retries[k]
		if t == nil {
			t = &retryTally{}
			r.view.retries[k] = t
		}
		if f.Retry {
			t.retried++
			t.maxDelay = max(t.maxDelay, f.Delay)
		} else {
			t.gaveUp++
		}
		t.maxAttempt = max(t.maxAttempt, attempt)
		if f.Policy != "" {
			t.policy = f.Policy
		}
	}
	r.details(ctx)
}

// retryDetails is the Markdown table of what the retry table did, by step and errorCode, with the rule the worker
// applied (the policy each step ran with). Current details are answered from memory, never recorded in the
// history, so the table's columns change without a version: a replay builds no command from them.
func retryDetails(m map[retryKey]*retryTally) string {
	if len(m) == 0 {
		return ""
	}
	keys := slices.SortedFunc(maps.Keys(m), func(a, b retryKey) int {
		return cmp.Or(cmp.Compare(a.verb, b.verb), cmp.Compare(a.code, b.code))
	})
	var b strings.Builder
	b.WriteString("\n| step | errorCode | retry policy | retried | longest delay | gave up | attempts reached |\n|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		t := m[k]
		policy := cmp.Or(t.policy, "–")
		fmt.Fprintf(&b, "| %s | `%s` | %s | %d | %s | %d | %d |\n", k.verb, k.code, policy, t.retried, t.maxDelay, t.gaveUp, t.maxAttempt)
	}
	return b.String()
}

// summary is the activity summary of step st on the recipients ids; "" for runs before operatorViewChange.
func (r *runner) summary(st step, ids []uuid.UUID) string {
	if r.view == nil {
		return ""
	}
	seqs := make([]int, 0, len(ids))
	for _, id := range ids {
		seqs = append(seqs, r.view.seq[id])
	}
	return chunkSummary(st.verb, seqs, r.view.total)
}
