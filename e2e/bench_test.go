package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/workflows"
)

// benchRecipients is the size of the benchmarked issuance.
const benchRecipients = 1000

// BenchmarkIssuance1000 issues to 1,000 recipients end to end per iteration on the embedded stack (Temporal
// in memory, dev chain sealing every 50 ms, SMTP test server with STARTTLS and AUTH), from the POST to
// COMPLETED, and checks that every recipient was received, mailed once and anchored once. Run it once:
//
//	go test -run '^$' -bench Issuance1000 -benchtime 1x -timeout 30m ./e2e/
func BenchmarkIssuance1000(b *testing.B) {
	batches := (benchRecipients + workflows.BatchSize - 1) / workflows.BatchSize
	s := newStack(b)
	tn := s.mustTenant(b, int64(benchRecipients*b.N))
	var total time.Duration
	b.ResetTimer()
	for i := range b.N {
		body := issuanceBody(b, tn.Program, emailRecipients(fmt.Sprintf("bench%d", i), benchRecipients), "")
		start := time.Now()
		id := s.mustIssue(b, "v3", tn.Key, tn.Badge, "bench-"+uuid.NewString(), body)
		accepted := time.Since(start)
		iss := s.waitIssuance(b, "v3", tn.Key, id, 25*time.Minute)
		elapsed := time.Since(start)
		total += elapsed
		b.StopTimer()
		require.Equal(b, "COMPLETED", iss["processingStatus"])
		iid := uuid.MustParse(id)
		require.Equal(b, benchRecipients, s.count(b, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED'", iid))
		// From workflows.BatchAnchorThreshold recipients on, each batch shares one Merkle-root transaction.
		require.Equal(b, batches, s.count(b, "SELECT count(DISTINCT anchor_tx_hash) FROM assertions WHERE issuance_id = $1", iid))
		require.Equal(b, benchRecipients, s.count(b, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND anchor_proof IS NOT NULL", iid))
		b.Logf("issuance %d: accepted in %s, completed in %s; phases: %s", i, accepted.Round(time.Millisecond),
			elapsed.Round(time.Millisecond), s.phases(b, iid))
		b.StartTimer()
	}
	b.StopTimer()
	require.Len(b, messagesByID(b, s.SMTP.Messages()), benchRecipients*b.N, "one mail per recipient")
	require.EqualValues(b, batches*b.N, s.senderNonce(b), "one transaction per batch")
	b.ReportMetric(float64(benchRecipients*b.N)/total.Seconds(), "recipients/s")
	b.ReportMetric(total.Seconds()/float64(b.N), "s/issuance")
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
