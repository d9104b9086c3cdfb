package workflows

import (
	"fmt"
	"sort"

	"github.com/google/uuid"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// Fan-out limits, sized for Temporal's history limits (DESIGN.md "Pitfalls"): a batch of 100 recipients makes
// about 100 × (2 activities × ~6 events + 5 local-activity markers) plus workflow tasks, well under 2,000 events
// in its child's history; the parent holds only a few events per child.
const (
	BatchSize            = 100
	MaxConcurrentBatches = 8
	// BatchAnchorThreshold is the recipient count from which an issuance anchors each batch's credentials in one
	// Merkle-batch transaction (a proof per credential) instead of one transaction each: a 1,000-recipient
	// issuance sends 10 transactions instead of 1,000. Smaller issuances keep a transaction per credential, the
	// simplest proof for a verifier.
	BatchAnchorThreshold = 20
)

// Query and search-attribute names.
const (
	ProgressQuery = "progress"
)

// IssueBadgeInput starts the workflow of one issuance. It carries ids only.
type IssueBadgeInput struct {
	IssuanceID     uuid.UUID
	OrgID          uuid.UUID
	BadgeID        uuid.UUID
	APIVersion     int
	RecipientCount int
}

// IssueBadgeResult is the outcome summary, also what the progress query answers at the end.
type IssueBadgeResult = Progress

// Progress is the progress query's answer: recipients by final state and failure code, and the batches that run.
type Progress struct {
	Total          int
	Finished       int
	ByState        map[string]int
	FailedByCode   map[string]int
	RunningBatches []string // child workflow ids
}

// IssueBadge runs one issuance: children of BatchSize recipients each, at most MaxConcurrentBatches at a time,
// then marks the issuance COMPLETED. It fails (and marks the issuance FAILED) only when processing as a whole
// fails; a recipient's failure is that recipient's outcome.
func IssueBadge(ctx workflow.Context, in IssueBadgeInput) (IssueBadgeResult, error) {
	log := workflow.GetLogger(ctx)
	p := Progress{Total: in.RecipientCount, ByState: map[string]int{}, FailedByCode: map[string]int{}}
	running := map[string]bool{}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (Progress, error) {
		out := p
		out.RunningBatches = sortedKeys(running)
		return out, nil
	}); err != nil {
		return p, err
	}
	log.Info("issuance started", "issuanceId", in.IssuanceID, "orgId", in.OrgID, "recipients", in.RecipientCount)

	var runErr error
	sem := workflow.NewSemaphore(ctx, MaxConcurrentBatches)
	wg := workflow.NewWaitGroup(ctx)
	for from := 0; from < in.RecipientCount; from += BatchSize {
		if err := sem.Acquire(ctx, 1); err != nil {
			return p, err
		}
		batch := IssueBatchInput{IssuanceID: in.IssuanceID, FromSeq: from, ToSeq: min(from+BatchSize, in.RecipientCount),
			BatchAnchor: in.RecipientCount >= BatchAnchorThreshold}
		childID := fmt.Sprintf("%s/batch-%05d", workflow.GetInfo(ctx).WorkflowExecution.ID, from/BatchSize)
		// Batches carry the issuance's search attributes, so a search by IssuanceId in the UI finds them too.
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: childID,
			TypedSearchAttributes: workflow.GetTypedSearchAttributes(ctx)})
		running[childID] = true
		wg.Add(1)
		workflow.Go(ctx, func(gctx workflow.Context) {
			defer wg.Done()
			defer sem.Release(1)
			var res BatchResult
			err := workflow.ExecuteChildWorkflow(cctx, IssueBatch, batch).Get(gctx, &res)
			delete(running, childID)
			if err != nil {
				log.Error("batch failed", "batch", childID, "error", err)
				runErr = err
				return
			}
			p.Finished += res.Finished
			for k, n := range res.ByState {
				p.ByState[k] += n
			}
			for k, n := range res.FailedByCode {
				p.FailedByCode[k] += n
			}
		})
	}
	wg.Wait(ctx)

	done := activities.CompleteIssuanceInput{IssuanceID: in.IssuanceID}
	if runErr != nil {
		done.Failure = runErr.Error()
	}
	actx := workflow.WithLocalActivityOptions(ctx, localDBOptions)
	if err := workflow.ExecuteLocalActivity(actx, a.CompleteIssuance, done).Get(ctx, nil); err != nil {
		return p, err
	}
	log.Info("issuance finished", "issuanceId", in.IssuanceID, "byState", p.ByState, "failedByCode", p.FailedByCode)
	if runErr != nil {
		return p, runErr
	}
	return p, nil
}

// a is used only for its method values: workflows name activities by typed reference, never by string.
var a *activities.Activities

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
