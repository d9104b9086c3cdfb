//go:build faults

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	dcluster "github.com/badged/badged/deploy/cluster"
)

// The goals of issue 21 for the cluster scale run, printed beside the figures.
const (
	goalRatio        = 1.05 // the largest size's time over the first's, per unit of their size ratio (10.5× for 10×)
	goalWorkerRSS    = 512 << 20
	goalAPIRSS       = 256 << 20
	goalHistEvents   = 10_000
	goalHistBytes    = 10 << 20
	clusterScaleWait = 110 * time.Minute
)

// BenchmarkClusterScale is BenchmarkScale on the production topology (`make cluster`'s code, deploy/cluster):
// Temporal's own server as four processes on Postgres, two `badged serve` behind the balancer, `badged worker`
// processes, S3, SMTP and the chain node as processes of their own. For each worker count of
// BADGED_SCALE_WORKERS (default 1 then 2; the second worker is stopped for the 1-worker runs) it issues each size
// of BADGED_SCALE_SIZES (default 10,000 then 100,000), one issuance at a time, checks that every recipient ended
// RECEIVED, anchored and mailed once, and prints: the time from the POST to COMPLETED, recipients/s, CPU ms per
// recipient (user+system time of the API and worker processes, from /proc/<pid>/stat), the peak RSS of each API and
// worker process during the run (VmRSS sampled every 250 ms), the largest workflow history (events and bytes, over
// the parent and every batch), Postgres bytes per recipient (growth of badged's database, and of Temporal's), and
// per worker count the largest size's time over the first's; each against issue 21's goal. It starts and stops the
// cluster itself (the Temporal build is cached in .tools/ after the first run):
//
//	make bench-cluster-scale
//	BADGED_SCALE_SIZES=500,2000 BADGED_SCALE_WORKERS=1 make bench-cluster-scale
func BenchmarkClusterScale(b *testing.B) {
	sizes, workerCounts := scaleSizes(b), scaleWorkers(b)
	c := newTemporalCluster(b, clusterOptions{apis: 2, workers: 2})
	ctx := context.Background()
	for range b.N {
		for _, w := range workerCounts {
			second := c.tc.Process("worker2")
			if w == 1 {
				require.NoError(b, second.Stop(ctx, 30*time.Second))
			} else {
				require.NoError(b, second.Start(ctx))
			}
			var runs []clusterScaleRun
			for _, n := range sizes {
				r := c.runClusterScale(b, n, w)
				runs = append(runs, r)
				clusterScaleLog(b, "%s", r)
			}
			first, last := runs[0], runs[len(runs)-1]
			b.ReportMetric(float64(last.n)/last.total.Seconds(), fmt.Sprintf("recipients/s-%dw", w))
			b.ReportMetric(last.cpuPerRecipient(), fmt.Sprintf("cpu-ms/recipient-%dw", w))
			if len(runs) > 1 {
				ratio, sizes := last.total.Seconds()/first.total.Seconds(), float64(last.n)/float64(first.n)
				b.ReportMetric(ratio, fmt.Sprintf("x-time-%dw", w))
				clusterScaleLog(b, "%d worker(s): %d recipients took %.2f× the time of %d (%.1f× the recipients; goal ≤ %.1f×: %s)",
					w, last.n, ratio, first.n, sizes, goalRatio*sizes, verdict(ratio <= goalRatio*sizes))
			}
		}
	}
}

// clusterScaleLog logs to the benchmark and at once to stderr (see scaleLog).
func clusterScaleLog(b *testing.B, format string, args ...any) {
	b.Helper()
	b.Logf(format, args...)
	fmt.Fprintf(os.Stderr, "BenchmarkClusterScale: "+format+"\n", args...)
}

// scaleWorkers reads BADGED_SCALE_WORKERS, the worker counts to measure (1 and/or 2).
func scaleWorkers(tb testing.TB) []int {
	tb.Helper()
	return envInts(tb, "BADGED_SCALE_WORKERS", []int{1, 2}, "1 or 2", func(n int) bool { return n == 1 || n == 2 })
}

// clusterScaleRun is what one issuance on the cluster took.
type clusterScaleRun struct {
	scaleRun
	workers    int
	peaks      map[string]int64 // process name → peak VmRSS during the run, bytes
	temporalPG int64            // growth of Temporal's databases, bytes
}

func (r clusterScaleRun) String() string {
	var rss []string
	ok := true
	for _, name := range []string{"api1", "api2", "worker1", "worker2"} {
		peak, ran := r.peaks[name]
		if !ran {
			continue
		}
		goal := int64(goalAPIRSS)
		if strings.HasPrefix(name, "worker") {
			goal = goalWorkerRSS
		}
		ok = ok && peak <= goal
		rss = append(rss, fmt.Sprintf("%s %d MiB", name, peak>>20))
	}
	histOK := r.histEvents <= goalHistEvents && r.histBytes <= goalHistBytes
	return fmt.Sprintf("%d worker(s), %d recipients: accepted in %s, completed in %.1f s (%.0f recipients/s), CPU of the API and worker processes %.1f s (%.2f ms per recipient); "+
		"peak RSS %s (goal worker ≤ 512 MiB, API ≤ 256 MiB: %s); largest history of %d workflows %d events, %d bytes (goal ≤ 10,000 events and 10 MB: %s); "+
		"Postgres %.0f bytes per recipient in badged's database, %.0f in Temporal's; %d anchor transactions",
		r.workers, r.n, r.accepted.Round(time.Millisecond), r.total.Seconds(), float64(r.n)/r.total.Seconds(), r.cpu.Seconds(), r.cpuPerRecipient(),
		strings.Join(rss, ", "), verdict(ok), r.histWorkflows, r.histEvents, r.histBytes, verdict(histOK),
		float64(r.pgBytes)/float64(r.n), float64(r.temporalPG)/float64(r.n), r.transactions)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// runClusterScale issues n recipients through the cluster's balancer and waits for COMPLETED, measuring the API
// and running worker processes.
func (c *cluster) runClusterScale(tb testing.TB, n, workers int) clusterScaleRun {
	tb.Helper()
	tn := c.mustTenant(tb, int64(n))
	body := issuanceBody(tb, tn.Program, emailRecipients(fmt.Sprintf("cscale%dw%d", workers, n), n), "")
	mailsBefore := len(c.messages(tb))
	pg0, tpg0 := c.databaseSize(tb), c.temporalSize(tb)
	var procs []*dcluster.Process
	for _, name := range []string{"api1", "api2", "worker1", "worker2"} {
		if p := c.tc.Process(name); p != nil && p.Pid() != 0 {
			procs = append(procs, p)
		}
	}
	m := startProcMeter(procs)
	r := clusterScaleRun{scaleRun: scaleRun{n: n}, workers: workers}
	start := time.Now()
	id := c.mustIssue(tb, "v3", tn.Key, tn.Badge, "cscale-"+uuid.NewString(), body)
	r.accepted = time.Since(start)
	iss := c.waitIssuance(tb, "v3", tn.Key, id, clusterScaleWait)
	r.total = time.Since(start)
	r.cpu, r.peaks = m.end()
	r.pgBytes, r.temporalPG = c.databaseSize(tb)-pg0, c.temporalSize(tb)-tpg0
	require.Equal(tb, "COMPLETED", iss["processingStatus"])
	iid := uuid.MustParse(id)
	require.Equal(tb, n, c.count(tb, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED'", iid),
		"every recipient RECEIVED")
	require.Equal(tb, n, c.count(tb, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND anchor_proof IS NOT NULL", iid))
	require.Equal(tb, n, len(c.messages(tb))-mailsBefore, "one mail per recipient")
	r.transactions = c.count(tb, "SELECT count(DISTINCT anchor_tx_hash) FROM assertions WHERE issuance_id = $1", iid)
	c.largestHistory(tb, iid, &r.scaleRun)
	return r
}

// temporalSize is the size of Temporal's two databases on the shared Postgres.
func (c *cluster) temporalSize(tb testing.TB) int64 {
	tb.Helper()
	var n int64
	require.NoError(tb, c.DB.Pool.QueryRow(context.Background(),
		"SELECT coalesce(sum(pg_database_size(datname)), 0)::bigint FROM pg_database WHERE datname = ANY($1)",
		[]string{c.tc.TemporalDB, c.tc.VisibilityDB}).Scan(&n))
	return n
}

// procMeter samples other processes: their CPU time (from its start) and each one's peak RSS.
type procMeter struct {
	pids  map[string]int
	cpu0  map[string]time.Duration
	stop  chan struct{}
	done  sync.WaitGroup
	mu    sync.Mutex
	peaks map[string]int64
}

func startProcMeter(procs []*dcluster.Process) *procMeter {
	m := &procMeter{pids: map[string]int{}, cpu0: map[string]time.Duration{}, stop: make(chan struct{}), peaks: map[string]int64{}}
	for _, p := range procs {
		pid := p.Pid()
		m.pids[p.Name], m.cpu0[p.Name] = pid, procCPU(pid)
	}
	m.sample()
	sampleEvery(250*time.Millisecond, m.stop, &m.done, m.sample)
	return m
}

func (m *procMeter) sample() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, pid := range m.pids {
		m.peaks[name] = max(m.peaks[name], procStatusBytes(pid, "VmRSS:"))
	}
}

// end stops sampling and returns the CPU the processes used since the start and their peaks.
func (m *procMeter) end() (time.Duration, map[string]int64) {
	close(m.stop)
	m.done.Wait()
	m.sample()
	var cpu time.Duration
	for name, pid := range m.pids {
		cpu += procCPU(pid) - m.cpu0[name]
	}
	return cpu, m.peaks
}
