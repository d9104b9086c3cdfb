//go:build faults

package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"

	"github.com/badged/badged/internal/waitfor"
)

// clusterFaultRecipients is the size of each issuance of TestFaults_TemporalCluster: three chunks, so a fault meets
// chunks at different steps.
const clusterFaultRecipients = 250

// clusterFault is one fault of TestFaults_TemporalCluster: injected when the issuance reached a point (a query over
// the issuance id and, if any, a step list counts at least want; see faults_dev_test.go), while recipients are in
// flight.
type clusterFault struct {
	name string
	at   devKillPoint
	do   func(t *testing.T, c *faultedCluster)
}

// faultedCluster is the cluster under TestFaults_TemporalCluster with what its faults record.
type faultedCluster struct {
	*cluster
	// killedAt is how many messages SMTP had accepted once a fault's SIGKILL of a worker had returned: a copy sent
	// twice must have its first before it (the dead worker's) and its second after.
	killedAt int
}

// matchingDown is how long the matching service stays stopped.
const matchingDown = 10 * time.Second

var clusterFaults = []clusterFault{
	{"worker kill -9", devKillPoint{"mail sent", sentQuery, nil, 30}, func(t *testing.T, c *faultedCluster) {
		c.Workers[0].Kill(t)
		// Counted once the worker is dead, not before the kill: what it handed SMTP in between is its own first copy.
		c.killedAt = len(c.messages(t))
		time.Sleep(faultWorkerDown)
		c.Workers[0].Start(t)
	}},
	{"history kill -9", devKillPoint{"signed", reachedQuery, stepsFrom(activities.StepSigned), 50}, func(t *testing.T, c *faultedCluster) {
		h := c.temporalProc("history")
		h.Kill(t)
		time.Sleep(faultWorkerDown)
		h.Start(t)
	}},
	{"Postgres restart", devKillPoint{"anchor sent", anchorSentQuery, nil, 1}, func(t *testing.T, c *faultedCluster) {
		during := c.probeDuring(func() { restartPostgres(t, faultPostgresDown) })
		t.Logf("API answers to GET /readyz while Postgres restarted: %v (status: count)", during)
		for _, api := range c.APIs {
			api.WaitReady(t, time.Minute)
		}
	}},
	{"matching stopped 10s", devKillPoint{"mail sent", sentQuery, nil, 20}, func(t *testing.T, c *faultedCluster) {
		m := c.temporalProc("matching")
		m.Stop(t)
		time.Sleep(matchingDown)
		m.Start(t)
	}},
}

// TestFaults_TemporalCluster runs badged on Temporal's own server, as `make cluster` starts it (deploy/cluster):
// Temporal's frontend, history, matching and worker services as processes of their own on Postgres, two API
// processes behind the balancer, two workers, and S3, SMTP and the chain node as processes; Temporal's and
// badged's data on one Postgres. One issuance after another, each meets one fault in its middle: a worker
// SIGKILLed and started again; the history service SIGKILLed and started again; Postgres restarted; the matching
// service stopped for 10 s. After each, every issuance so far is COMPLETED with every recipient RECEIVED, exactly
// one credential, one anchor and one Message-ID (cluster.exactlyOnce), and mail went out twice only in the window
// the design leaves: accepted by SMTP, then the worker killed before recording it.
func TestFaults_TemporalCluster(t *testing.T) {
	c := &faultedCluster{cluster: newTemporalCluster(t, clusterOptions{apis: 2, workers: 2})}
	tn := c.mustTenant(t, int64(len(clusterFaults)*clusterFaultRecipients))
	var runs []issued
	var summary []string
	for i, f := range clusterFaults {
		ok := t.Run(f.name, func(t *testing.T) {
			start := time.Now()
			id := c.mustIssue(t, "v3", tn.Key, tn.Badge, fmt.Sprintf("clusterfault-%d-%s", i, uuid.NewString()),
				issuanceBody(t, tn.Program, emailRecipients(fmt.Sprintf("cfault%d", i), clusterFaultRecipients), ""))
			issuance := uuid.MustParse(id)
			runs = append(runs, issued{ID: id, Key: tn.Key, Recipients: clusterFaultRecipients})

			waitfor.True(t, 5*time.Minute, 20*time.Millisecond, fmt.Sprintf("%s: %s to reach %d", f.name, f.at.name, f.at.want),
				func() bool { return f.at.count(t, c.stack, issuance) >= f.at.want })
			snap := c.progress(t, issuance)
			require.Positive(t, c.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'PROCESSING'",
				issuance), "%s meets recipients in flight", f.name)
			t0 := time.Now()
			f.do(t, c)
			faultTook := time.Since(t0)

			require.Equal(t, "COMPLETED", c.waitIssuance(t, "v3", tn.Key, id, 10*time.Minute)["processingStatus"])
			elapsed := time.Since(start)
			redelivered := c.exactlyOnce(t, runs)
			summary = append(summary, fmt.Sprintf("%-20s at %-11s (%5.1fs, %s): over in %s, COMPLETED %s after the POST; messages re-sent so far %d",
				f.name, f.at.name, t0.Sub(start).Seconds(), snap, faultTook.Round(100*time.Millisecond),
				elapsed.Round(100*time.Millisecond), redelivered))
		})
		require.True(t, ok, "%s: the later faults would meet its leftovers", f.name)
	}
	requireResentOnlyAfterKill(t, c.messages(t), c.killedAt)
	require.EqualValues(t, 0, c.credits(t, tn.Org.ID), "one credit per recipient, once")
	t.Logf("Temporal cluster (4 Temporal processes, 2 APIs, 2 workers), %d issuances of %d recipients:", len(runs), clusterFaultRecipients)
	for _, s := range summary {
		t.Logf("  %s", s)
	}
	t.Logf("  %s", c.anchorSummary(t))
}

// TestScaleOut_TemporalCluster is TestScaleOut_TwoAPIsTwoWorkers on Temporal's own server (deploy/cluster): the
// same issuances, checks and graceful drain of worker 2, with the APIs behind the cluster's balancer.
func TestScaleOut_TemporalCluster(t *testing.T) {
	scaleOut(t, newTemporalCluster(t, clusterOptions{apis: 2, workers: 2}))
}
