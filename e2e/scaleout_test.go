package e2e

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/workflows"

	"github.com/badged/badged/internal/waitfor"
)

// TestScaleOut_TwoAPIsTwoWorkers deploys badged as two API processes behind a round-robin balancer and two worker
// processes on one Temporal server and one Postgres. Concurrent retries of one POST reach both APIs and still
// make one issuance; two issuances run at once across both workers; each recipient ends with exactly one
// credential, anchor and message; both APIs served requests and both workers ran steps; a worker stopped
// gracefully in the middle leaves nothing behind.
func TestScaleOut_TwoAPIsTwoWorkers(t *testing.T) {
	scaleOut(t, newCluster(t, clusterOptions{apis: 2, workers: 2}))
}

// scaleOut is the scale-out scenario on a cluster of two APIs and two workers, on the embedded Temporal server or
// on Temporal's own (TestScaleOut_TemporalCluster).
func scaleOut(t *testing.T, c *cluster) {
	tn := c.mustTenant(t, 2000)

	// The same POST retried 12 times at once, spread over both API processes by the balancer. Three batches (child
	// workflows, with their chunks' anchor and notify steps) for the two workers to share.
	big := issued{Key: tn.Key, Recipients: 2*workflows.BatchSize + 200}
	body := issuanceBody(t, tn.Program, emailRecipients("scale-big", big.Recipients), "")
	idem := "scale-" + uuid.NewString()
	var wg sync.WaitGroup
	results := make([]postResult, 12)
	for i := range results {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = c.postIssuanceNoFail(idem, tn, body) }()
	}
	wg.Wait()
	for _, r := range results {
		require.Equal(t, http.StatusOK, r.status, r.raw)
		require.Equal(t, results[0].id, r.id, "every retry answers the same issuance")
	}
	big.ID = results[0].id
	small := issued{Key: tn.Key, Recipients: 12}
	small.ID = c.mustIssue(t, "v3", tn.Key, tn.Badge, "scale-small-"+uuid.NewString(),
		issuanceBody(t, tn.Program, emailRecipients("scale-small", small.Recipients), ""))
	start := time.Now()

	// Both workers take steps; then worker 2 drains (SIGTERM) while work is under way.
	for _, w := range c.Workers {
		c.waitMetric(t, w, 2*time.Minute, "badged_activity_attempts_total", `outcome="success"`)
	}
	require.Positive(t, c.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'PROCESSING'",
		uuid.MustParse(big.ID)), "the issuance is still under way when worker 2 stops")
	c.Workers[1].Stop(t)
	require.True(t, c.Workers[1].LogContains("shutting down"), "worker 2 shut down gracefully")

	c.waitIssuance(t, "v3", tn.Key, big.ID, 5*time.Minute)
	c.waitIssuance(t, "v3", tn.Key, small.ID, 5*time.Minute)
	elapsed := time.Since(start)
	require.Equal(t, 1, c.countWorkflows(t, big.ID), "one issuance workflow for 12 identical POSTs")
	require.Zero(t, c.exactlyOnce(t, []issued{big, small}), "no message re-sent without a fault")
	require.EqualValues(t, 2000-big.Recipients-small.Recipients, c.credits(t, tn.Org.ID))

	for _, api := range c.APIs {
		require.Positive(t, api.scrape(t, "badged_http_requests_total", `route="/public/v3/badges/{badgeId}/issuances"`, `method="POST"`),
			"%s served issuance requests", api.Name)
	}
	t.Logf("scale-out: %d recipients over 2 APIs and 2 workers (one drained midway) in %s (%.0f recipients/s)",
		big.Recipients+small.Recipients, elapsed.Round(time.Millisecond), float64(big.Recipients+small.Recipients)/elapsed.Seconds())
}

// waitMetric waits until a process's metric (summed over the series matching filters) is positive.
func (c *cluster) waitMetric(tb testing.TB, p *proc, timeout time.Duration, name string, filters ...string) {
	tb.Helper()
	waitfor.True(tb, timeout, 50*time.Millisecond, fmt.Sprintf("%s: %s %v above 0", p.Name, name, filters),
		func() bool { return p.scrape(tb, name, filters...) > 0 })
}
