package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/api"
	"github.com/badged/badged/db"
	"github.com/badged/badged/workflows"
)

// The work floor of an issuance: the per-recipient work itself, without Temporal and without the network. The
// issuance is recorded by the API's handler called in process (its validation and database writes, no HTTP
// connection, no workflow start); then the same activity methods the workflows run (LoadBatch; check, sign,
// anchor, bake, publish, notify on chunks of workflows.ChunkSize; FinishAssertions; CompleteIssuance) are called
// directly, step after step over all chunks, as many chunks at a time as the workflows run (MaxConcurrentBatches
// batches of BatchSize/ChunkSize chunks); the anchor step runs on every chunk at once, so the anchor pool sends a
// transaction as soon as it is full rather than waiting out its Wait. What the issuance takes beyond this is
// Temporal, HTTP and the pipeline's own waiting.

// noStart is an api.IssuanceStarter that starts nothing: the work floor runs the steps itself.
type noStart struct{}

func (noStart) StartIssuance(context.Context, db.Issuance) error { return nil }

// runWorkFloor runs the work floor of an issuance of n recipients on the stack and measures it like runScale.
func (s *stack) runWorkFloor(tb testing.TB, n int) scaleRun {
	tb.Helper()
	ctx := context.Background()
	tn := s.mustTenant(tb, int64(n))
	body := issuanceBody(tb, tn.Program, emailRecipients(fmt.Sprintf("floor%d", n), n), "")
	deps := s.APIDeps
	deps.Issuances = noStart{}
	handler := api.NewHandler(deps)
	mailsBefore := len(s.SMTP.Messages())
	pg0 := s.databaseSize(tb)
	r := scaleRun{n: n}
	var steps []string
	m := startMeter()
	start := time.Now()

	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/public/v3/badges/"+tn.Badge+"/issuances", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", tn.Key)
	req.Header.Set("Idempotency-Key", "floor-"+uuid.NewString())
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	require.Equal(tb, http.StatusOK, rec.Code, "%.500s", rec.Body.String())
	var iid uuid.UUID
	require.NoError(tb, s.DB.Pool.QueryRow(ctx, "SELECT id FROM issuances WHERE org_id = $1", tn.Org.ID).Scan(&iid))
	r.accepted = time.Since(start)
	steps = append(steps, fmt.Sprintf("accept %.1fs", r.accepted.Seconds()))

	var ids []uuid.UUID
	mark := time.Now()
	for from := 0; from < n; from += workflows.BatchSize {
		res, err := s.Acts.LoadBatch(ctx, activities.LoadBatchInput{IssuanceID: iid, FromSeq: from, ToSeq: min(from+workflows.BatchSize, n)})
		require.NoError(tb, err)
		for _, ref := range res.Recipients {
			ids = append(ids, ref.AssertionID)
		}
	}
	require.Len(tb, ids, n)
	steps = append(steps, fmt.Sprintf("load %.1fs", time.Since(mark).Seconds()))
	chunks := slices.Collect(slices.Chunk(ids, workflows.ChunkSize))
	parallel := workflows.MaxConcurrentBatches * workflows.BatchSize / workflows.ChunkSize
	type stepFn func(context.Context, activities.StepBatch) (activities.StepResult, error)
	for _, st := range []struct {
		name string
		run  stepFn
	}{
		{"check", s.Acts.CheckRecipients}, {"sign", s.Acts.SignCredentials}, {"anchor", s.Acts.AnchorCredentials},
		{"bake", s.Acts.BakeBadges}, {"publish", s.Acts.PublishCredentials}, {"notify", s.Acts.NotifyRecipients},
	} {
		mark := time.Now()
		at := parallel
		if st.name == "anchor" {
			// Every chunk at once: the pool sends a transaction as soon as it holds MaxBatch credentials. Run
			// parallel at a time, each wave would wait out the pool's Wait for the credentials still "headed" to
			// it (all of them had been through check and sign): waiting, not work, and not what the pipeline does.
			at = len(chunks)
		}
		eachChunk(tb, chunks, at, func(chunk []uuid.UUID) error {
			res, err := st.run(ctx, activities.StepBatch{IssuanceID: iid, Assertions: chunk, Attempt: 1})
			if err == nil && len(res.Failed) > 0 {
				err = fmt.Errorf("%s: %d recipients failed, first %+v", st.name, len(res.Failed), res.Failed[0])
			}
			return err
		})
		steps = append(steps, fmt.Sprintf("%s %.1fs", st.name, time.Since(mark).Seconds()))
	}
	mark = time.Now()
	eachChunk(tb, chunks, parallel, func(chunk []uuid.UUID) error {
		out := make([]activities.Outcome, len(chunk))
		for i, id := range chunk {
			out[i] = activities.Outcome{AssertionID: id}
		}
		_, err := s.Acts.FinishAssertions(ctx, activities.FinishBatch{IssuanceID: iid, Outcomes: out})
		return err
	})
	require.NoError(tb, s.Acts.CompleteIssuance(ctx, activities.CompleteIssuanceInput{IssuanceID: iid}))
	steps = append(steps, fmt.Sprintf("finish %.1fs", time.Since(mark).Seconds()))
	r.total = time.Since(start)
	m.end(&r)
	r.pgBytes = s.databaseSize(tb) - pg0
	r.steps = "steps: " + strings.Join(steps, ", ")

	require.Equal(tb, n, s.count(tb, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED'", iid))
	require.Equal(tb, n, s.count(tb, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND anchor_proof IS NOT NULL", iid))
	require.Equal(tb, n, len(s.SMTP.Messages())-mailsBefore, "one mail per recipient")
	require.Equal(tb, 1, s.count(tb, "SELECT count(*) FROM issuances WHERE id = $1 AND processing_status = 'COMPLETED'", iid))
	r.transactions = s.count(tb, "SELECT count(DISTINCT anchor_tx_hash) FROM assertions WHERE issuance_id = $1", iid)
	return r
}

// eachChunk runs fn on every chunk, at most parallel at a time, and fails tb on the first error.
func eachChunk(tb testing.TB, chunks [][]uuid.UUID, parallel int, fn func([]uuid.UUID) error) {
	tb.Helper()
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, c := range chunks {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(c); err != nil {
				mu.Lock()
				first = cmpOr(first, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.NoError(tb, first)
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
