//go:build faults

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/internal/waitfor"
	"github.com/badged/badged/workflows"
)

// clusterDrillRecipients is the size of the cluster drill's issuance: three chunks, mail in flight at the loss.
const clusterDrillRecipients = 300

// reconcilerStarted is what a worker's reconciler logs when it starts again a workflow Temporal no longer has.
const reconcilerStarted = "started again the workflow of an issuance Temporal no longer has"

// TestFaults_ClusterPersistenceLossDrill is the operators' drill of losing Temporal's data (docs/operators.md, "When
// Temporal loses its data") on the production topology, as `badged-cluster reset-temporal` runs it: while a
// 300-recipient issuance is mailing on Temporal's own cluster (deploy/cluster), Temporal's four services stop, its
// two databases are dropped and created again at the server's schema, and the services start again with the
// namespace and search attributes registered. badged's APIs, workers and database keep running. Nothing in Temporal
// remembers the issuance; Postgres does: a worker's reconciler starts its workflow again after ORPHAN_AFTER, and
// every recipient ends RECEIVED with one credential, one anchor and one message (cluster.exactlyOnce), a message
// sent twice only if it was in flight when Temporal went away, and 300 credits charged once.
func TestFaults_ClusterPersistenceLossDrill(t *testing.T) {
	t0 := time.Now()
	c := newTemporalClusterEnv(t, clusterOptions{apis: 1, workers: 2},
		"ORPHAN_AFTER=2s") // the reconciler's grace: how soon an issuance without a workflow gets one
	upTook := time.Since(t0)
	tn := c.mustTenant(t, 2*clusterDrillRecipients)

	start := time.Now()
	id := c.mustIssue(t, "v3", tn.Key, tn.Badge, "cdrill-"+uuid.NewString(),
		issuanceBody(t, tn.Program, emailRecipients("cdrill", clusterDrillRecipients), ""))
	issuance := uuid.MustParse(id)
	runs := []issued{{ID: id, Key: tn.Key, Recipients: clusterDrillRecipients}}

	waitfor.True(t, 5*time.Minute, 20*time.Millisecond, "mail to be sent to 100 recipients",
		func() bool { return c.count(t, sentQuery, issuance) >= 100 })
	snap := c.progress(t, issuance)
	require.Positive(t, c.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'PROCESSING'",
		issuance), "the loss meets recipients in flight")
	require.Positive(t, c.runningWorkflows(t, id), "Temporal runs the issuance before the loss")

	pids := map[string]int{} // badged's processes live through the loss: the running workers reconcile
	for _, w := range append(c.Workers, c.APIs...) {
		pids[w.Name] = w.ext.Pid()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lost := time.Now()
	require.NoError(t, c.tc.StopTemporal(ctx, 30*time.Second))
	// A copy sent twice has its first copy before Temporal went away (or while it was away, from an activity that
	// ran on) and its second from the new run, after the restart.
	killedAt := []int{len(c.messages(t))}
	stopTook := time.Since(lost)
	t1 := time.Now()
	require.NoError(t, c.tc.ResetTemporal(ctx), "Temporal's databases dropped and created again")
	resetTook := time.Since(t1)
	t2 := time.Now()
	require.NoError(t, c.tc.Up(ctx), "Temporal's services started again")
	restartTook := time.Since(t2)
	killedAt = append(killedAt, len(c.messages(t)))
	back := time.Now()

	require.Equal(t, "COMPLETED", c.waitIssuance(t, "v3", tn.Key, id, 10*time.Minute)["processingStatus"])
	completedAfter := time.Since(back)
	reconciled := false
	for _, w := range c.Workers {
		reconciled = reconciled || w.ext.LogContains(reconcilerStarted)
	}
	require.True(t, reconciled, "a worker's reconciler, not the lost run, finished it")
	for _, w := range append(c.Workers, c.APIs...) {
		require.Equal(t, pids[w.Name], w.ext.Pid(), "%s was not restarted", w.Name)
	}

	redelivered := c.exactlyOnce(t, runs)
	dups := requireMailWindow(t, c.assertionRows(t, id), c.messages(t), killedAt, clusterDrillDupBound())
	require.Equal(t, redelivered, dups)
	require.EqualValues(t, clusterDrillRecipients, c.credits(t, tn.Org.ID), "300 credits spent, once")

	t.Logf("Temporal cluster, its persistence lost during one %d-recipient issuance (%.1fs in: %s)",
		clusterDrillRecipients, lost.Sub(start).Seconds(), snap)
	t.Logf("  cluster up %s; Temporal stopped in %s, databases dropped and recreated in %s, services up in %s",
		upTook.Round(100*time.Millisecond), stopTook.Round(100*time.Millisecond), resetTook.Round(100*time.Millisecond),
		restartTook.Round(100*time.Millisecond))
	t.Logf("  COMPLETED %s after the restart; messages accepted twice: %d (bound %d); %s",
		completedAfter.Round(100*time.Millisecond), dups, clusterDrillDupBound(), c.anchorSummary(t))
}

// clusterDrillDupBound is the re-send window of one loss: the messages in flight, a batch's chunks at once, each
// with activities.NotifyWorkers sending.
func clusterDrillDupBound() int {
	return (clusterDrillRecipients + workflows.ChunkSize - 1) / workflows.ChunkSize * activities.NotifyWorkers
}
