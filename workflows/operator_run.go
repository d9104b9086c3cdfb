package workflows

import (
	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"
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
}

func newRunView(title string, total int) *runView {
	return &runView{title: title, total: total, seq: map[uuid.UUID]int{}, at: make([]int, len(pipeline)+1)}
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
	workflow.SetCurrentDetails(ctx, progressDetails(r.view.title, r.view.stage, r.view.total, r.result, nil))
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
