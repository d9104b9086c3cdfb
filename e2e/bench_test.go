package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
)

// benchRecipients is the size of the benchmarked issuance: BADGED_BENCH_RECIPIENTS, 1,000 by default.
func benchRecipients(tb testing.TB) int {
	tb.Helper()
	v := os.Getenv("BADGED_BENCH_RECIPIENTS")
	if v == "" {
		return 1000
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, "BADGED_BENCH_RECIPIENTS")
	require.True(tb, n >= 1 && n <= 10_000, "BADGED_BENCH_RECIPIENTS: 1..10000")
	return n
}

// BenchmarkIssuance issues to BADGED_BENCH_RECIPIENTS recipients end to end on the embedded stack (Temporal in
// memory, dev chain sealing every 50 ms, SMTP test server with STARTTLS and AUTH, the production anchor wait),
// from the POST to COMPLETED as a client polling sees it, with the CPU the process and the database's Postgres
// backends spent on it per recipient, and checks that every recipient was received, mailed once and anchored once.
// In the same run, on the same server, it runs the floor (floor_test.go: the same workflows with activities that do
// nothing) and reports both times and their ratio. Run it once:
//
//	go test -run '^$' -bench Issuance -benchtime 1x -timeout 30m ./e2e/
//	BADGED_BENCH_RECIPIENTS=10000 go test -run '^$' -bench Issuance -benchtime 1x -timeout 60m ./e2e/
//
// BADGED_BENCH_ANCHOR_MIN_WAIT (a duration, default 0 as shipped) sets ANCHOR_MIN_WAIT: 2s measures the anchor
// batch waiting out its full window, as before the batch went once nothing else was on its way.
func BenchmarkIssuance(b *testing.B) {
	n := benchRecipients(b)
	var minWait time.Duration
	if v := os.Getenv("BADGED_BENCH_ANCHOR_MIN_WAIT"); v != "" {
		var err error
		minWait, err = time.ParseDuration(v)
		require.NoError(b, err, "BADGED_BENCH_ANCHOR_MIN_WAIT")
	}
	s := newStack(b, stackOptions{anchorWait: activities.DefaultAnchorWait, anchorMinWait: minWait})
	s.startFloorWorker(b)
	tn := s.mustTenant(b, int64(n*b.N))
	var pipeline, floor, cpu, pgCPU time.Duration
	var txs int
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		floor += s.runFloor(b, n)
		body := issuanceBody(b, tn.Program, emailRecipients(fmt.Sprintf("bench%d", i), n), "")
		pg0 := s.pgBackendCPU(b)
		cpu0 := processCPU()
		b.StartTimer()
		start := time.Now()
		id := s.mustIssue(b, "v3", tn.Key, tn.Badge, "bench-"+uuid.NewString(), body)
		accepted := time.Since(start)
		iss := s.waitIssuance(b, "v3", tn.Key, id, 55*time.Minute)
		elapsed := time.Since(start)
		pipeline += elapsed
		b.StopTimer()
		cpu += processCPU() - cpu0
		pgCPU += s.pgCPUSince(b, pg0)
		require.Equal(b, "COMPLETED", iss["processingStatus"])
		iid := uuid.MustParse(id)
		require.Equal(b, n, s.count(b, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED'", iid))
		require.Equal(b, n, s.count(b, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND anchor_proof IS NOT NULL", iid))
		txs += s.count(b, "SELECT count(DISTINCT anchor_tx_hash) FROM assertions WHERE issuance_id = $1", iid)
		b.Logf("issuance %d: accepted in %s, completed in %s; phases: %s", i, accepted.Round(time.Millisecond),
			elapsed.Round(time.Millisecond), s.phases(b, iid))
		b.StartTimer()
	}
	b.StopTimer()
	require.Len(b, messagesByID(b, s.SMTP.Messages()), n*b.N, "one mail per recipient")
	require.EqualValues(b, txs, s.senderNonce(b), "one transaction per anchor recorded")
	requireAnchorRoots(b, s.DB, s.Chain.URL())
	b.ReportMetric(float64(n*b.N)/pipeline.Seconds(), "recipients/s")
	b.ReportMetric(pipeline.Seconds()/float64(b.N), "s/issuance")
	b.ReportMetric(floor.Seconds()/float64(b.N), "floor-s/issuance")
	b.ReportMetric(pipeline.Seconds()/floor.Seconds(), "x-floor")
	b.ReportMetric(float64(n*b.N)/float64(txs), "credentials/tx")
	perRecipient := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n*b.N) }
	b.ReportMetric(perRecipient(cpu), "cpu-ms/recipient")
	b.ReportMetric(perRecipient(pgCPU), "pg-cpu-ms/recipient")
	b.Logf("%d recipients: pipeline %.1f s, floor %.1f s, ratio %.2f; %d anchor transactions (%.0f credentials each); "+
		"CPU per recipient: process %.2f ms, Postgres backends %.2f ms",
		n, pipeline.Seconds()/float64(b.N), floor.Seconds()/float64(b.N), pipeline.Seconds()/floor.Seconds(),
		txs/b.N, float64(n*b.N)/float64(txs), perRecipient(cpu), perRecipient(pgCPU))
}

// phases summarizes when the recipients of an issuance reached their milestones, from the issuance's creation:
// the first and last anchor recorded (chain_txs), the first and last mail recorded (notifications) and the last
// outcome (updated_at).
func (s *stack) phases(tb testing.TB, issuance uuid.UUID) string {
	tb.Helper()
	var firstTx, lastTx, firstMail, lastMail, lastDone float64
	err := s.DB.Pool.QueryRow(context.Background(), `
		WITH i AS (SELECT created_at FROM issuances WHERE id = $1)
		SELECT
		  extract(epoch FROM min(c.created_at) - (SELECT created_at FROM i)),
		  extract(epoch FROM max(c.created_at) - (SELECT created_at FROM i)),
		  extract(epoch FROM min(n.sent_at) - (SELECT created_at FROM i)),
		  extract(epoch FROM max(n.sent_at) - (SELECT created_at FROM i)),
		  extract(epoch FROM max(a.updated_at) - (SELECT created_at FROM i))
		FROM assertions a
		LEFT JOIN chain_txs c ON c.tx_hash = a.anchor_tx_hash
		LEFT JOIN notifications n ON n.assertion_id = a.id
		WHERE a.issuance_id = $1`, issuance).Scan(&firstTx, &lastTx, &firstMail, &lastMail, &lastDone)
	require.NoError(tb, err)
	return fmt.Sprintf("anchors %.1fs..%.1fs, mails %.1fs..%.1fs, last outcome %.1fs", firstTx, lastTx, firstMail, lastMail, lastDone)
}
