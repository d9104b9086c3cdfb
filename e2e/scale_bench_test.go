package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"google.golang.org/protobuf/proto"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/workflows"
)

// BenchmarkScale issues BADGED_SCALE_SIZES recipients (default 10,000 then 100,000) one issuance after the other
// on one embedded stack (the in-process shape of `badged dev`: API, worker, Temporal, dev chain, SMTP in one
// process, Postgres beside it) and reports for each: the POST's answer time, the time to COMPLETED, recipients/s,
// CPU ms per recipient (the process's user+system time), the process's peak RSS during the run, the largest
// workflow history (events and bytes, over the parent and every batch) and Postgres bytes per recipient (growth of
// the database). Each issuance must end with every recipient RECEIVED, mailed once and anchored. After the first
// size it runs the work floor (workfloor_test.go) on as many recipients and prints both and their ratio; at the
// end it prints the largest size's time against the first's. Run it once:
//
//	go test -run '^$' -bench Scale -benchtime 1x -timeout 120m ./e2e/
//	BADGED_SCALE_SIZES=10000 go test -run '^$' -bench Scale -benchtime 1x -timeout 60m ./e2e/
func BenchmarkScale(b *testing.B) {
	sizes := scaleSizes(b)
	s := newStack(b, stackOptions{anchorWait: activities.DefaultAnchorWait})
	var runs []scaleRun
	for range b.N {
		for i, n := range sizes {
			r := s.runScale(b, n)
			runs = append(runs, r)
			scaleLog(b, "%s", r)
			if i == 0 {
				floor := s.runWorkFloor(b, n)
				scaleLog(b, "work floor, %s", floor)
				scaleLog(b, "issuance / work floor: %.2f× in time (%.1f s / %.1f s), %.2f× in CPU (%.2f / %.2f ms per recipient)",
					r.total.Seconds()/floor.total.Seconds(), r.total.Seconds(), floor.total.Seconds(),
					r.cpuPerRecipient()/floor.cpuPerRecipient(), r.cpuPerRecipient(), floor.cpuPerRecipient())
				b.ReportMetric(r.total.Seconds()/floor.total.Seconds(), "x-workfloor")
			}
		}
	}
	first, last := runs[0], runs[len(sizes)-1]
	b.ReportMetric(first.total.Seconds(), fmt.Sprintf("s/%d", first.n))
	b.ReportMetric(last.total.Seconds(), fmt.Sprintf("s/%d", last.n))
	b.ReportMetric(float64(last.n)/last.total.Seconds(), "recipients/s")
	b.ReportMetric(last.cpuPerRecipient(), "cpu-ms/recipient")
	b.ReportMetric(float64(last.peakRSS)/(1<<20), "peak-RSS-MiB")
	if len(sizes) > 1 {
		ratio := last.total.Seconds() / first.total.Seconds()
		b.ReportMetric(ratio, "x-time")
		scaleLog(b, "%d recipients took %.2f× the time of %d (%.1f× the recipients)", last.n, ratio, first.n, float64(last.n)/float64(first.n))
	}
}

// scaleLog logs to the benchmark and at once to stderr: a benchmark's log is printed only when it ends, and a
// run of an hour that is stopped early should still leave the sizes it measured.
func scaleLog(b *testing.B, format string, args ...any) {
	b.Helper()
	b.Logf(format, args...)
	fmt.Fprintf(os.Stderr, "BenchmarkScale: "+format+"\n", args...)
}

// scaleSizes reads BADGED_SCALE_SIZES, a comma-separated list of issuance sizes (1..100,000 each).
func scaleSizes(tb testing.TB) []int {
	tb.Helper()
	return envInts(tb, "BADGED_SCALE_SIZES", []int{10_000, 100_000}, "1..100000", func(n int) bool { return n >= 1 && n <= 100_000 })
}

// envInts reads the environment variable name, a comma-separated list of integers each of which valid (described
// by rule) accepts; unset, it is def.
func envInts(tb testing.TB, name string, def []int, rule string, valid func(int) bool) []int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(tb, err, name)
		require.True(tb, valid(n), "%s: %s each", name, rule)
		out = append(out, n)
	}
	return out
}

// scaleRun is what one measured issuance (or work floor) took.
type scaleRun struct {
	n               int
	accepted, total time.Duration
	cpu             time.Duration // user + system time of the process
	peakRSS         int64         // bytes, sampled every 100 ms
	histEvents      int           // largest history: events
	histBytes       int           // largest history: bytes (protobuf size of its events)
	histWorkflows   int
	pgBytes         int64 // growth of the database
	transactions    int
	steps           string // the work floor: time per step
}

func (r scaleRun) cpuPerRecipient() float64 {
	return float64(r.cpu.Microseconds()) / 1000 / float64(r.n)
}

func (r scaleRun) String() string {
	s := fmt.Sprintf("%d recipients: accepted in %s, completed in %.1f s (%.0f recipients/s), CPU %.1f s (%.2f ms per recipient), peak RSS %d MiB, Postgres %.0f bytes per recipient",
		r.n, r.accepted.Round(time.Millisecond), r.total.Seconds(), float64(r.n)/r.total.Seconds(), r.cpu.Seconds(),
		r.cpuPerRecipient(), r.peakRSS>>20, float64(r.pgBytes)/float64(r.n))
	if r.histWorkflows > 0 {
		s += fmt.Sprintf(", largest history of %d workflows: %d events, %d bytes; %d anchor transactions", r.histWorkflows, r.histEvents, r.histBytes, r.transactions)
	}
	if r.steps != "" {
		s += "; " + r.steps
	}
	return s
}

// meter samples the process's CPU time and peak RSS from start until stop.
type meter struct {
	cpu0 time.Duration
	stop chan struct{}
	done sync.WaitGroup
	peak int64
}

func startMeter() *meter {
	m := &meter{cpu0: processCPU(), stop: make(chan struct{}), peak: rss()}
	sampleEvery(100*time.Millisecond, m.stop, &m.done, func() { m.peak = max(m.peak, rss()) })
	return m
}

// sampleEvery calls sample every d until stop is closed, in a goroutine that done counts.
func sampleEvery(d time.Duration, stop <-chan struct{}, done *sync.WaitGroup, sample func()) {
	done.Add(1)
	go func() {
		defer done.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				sample()
			}
		}
	}()
}

func (m *meter) end(r *scaleRun) {
	close(m.stop)
	m.done.Wait()
	r.cpu = processCPU() - m.cpu0
	r.peakRSS = max(m.peak, rss())
}

func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// rss is the process's resident set size now (VmRSS), in bytes.
func rss() int64 { return procStatusBytes(os.Getpid(), "VmRSS:") }

func (s *stack) databaseSize(tb testing.TB) int64 {
	tb.Helper()
	var n int64
	require.NoError(tb, s.DB.Pool.QueryRow(context.Background(), "SELECT pg_database_size(current_database())").Scan(&n))
	return n
}

// runScale issues n recipients through the API and waits for COMPLETED, measuring it (scaleRun).
func (s *stack) runScale(tb testing.TB, n int) scaleRun {
	tb.Helper()
	tn := s.mustTenant(tb, int64(n))
	body := issuanceBody(tb, tn.Program, emailRecipients(fmt.Sprintf("scale%d", n), n), "")
	mailsBefore := len(s.SMTP.Messages())
	pg0 := s.databaseSize(tb)
	r := scaleRun{n: n}
	m := startMeter()
	start := time.Now()
	id := s.mustIssue(tb, "v3", tn.Key, tn.Badge, "scale-"+uuid.NewString(), body)
	r.accepted = time.Since(start)
	iss := s.waitIssuance(tb, "v3", tn.Key, id, 110*time.Minute)
	r.total = time.Since(start)
	m.end(&r)
	r.pgBytes = s.databaseSize(tb) - pg0
	require.Equal(tb, "COMPLETED", iss["processingStatus"])
	iid := uuid.MustParse(id)
	require.Equal(tb, n, s.count(tb, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED'", iid),
		"every recipient RECEIVED")
	require.Equal(tb, n, s.count(tb, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND anchor_proof IS NOT NULL", iid))
	require.Equal(tb, n, len(s.SMTP.Messages())-mailsBefore, "one mail per recipient")
	r.transactions = s.count(tb, "SELECT count(DISTINCT anchor_tx_hash) FROM assertions WHERE issuance_id = $1", iid)
	s.largestHistory(tb, iid, &r)
	return r
}

// largestHistory reads the history of the issuance's workflow and of each of its batches and keeps the largest.
func (s *stack) largestHistory(tb testing.TB, issuance uuid.UUID, r *scaleRun) {
	tb.Helper()
	ctx := context.Background()
	var wf string
	require.NoError(tb, s.DB.Pool.QueryRow(ctx, "SELECT workflow_id FROM issuances WHERE id = $1", issuance).Scan(&wf))
	ids := []string{wf}
	for b := 0; b*workflows.BatchSize < r.n; b++ {
		ids = append(ids, fmt.Sprintf("%s/batch-%05d", wf, b))
	}
	for _, id := range ids {
		it := s.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		events, size := 0, 0
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(tb, err, "history of %s", id)
			events++
			size += proto.Size(ev)
		}
		r.histWorkflows++
		r.histEvents = max(r.histEvents, events)
		r.histBytes = max(r.histBytes, size)
	}
}
