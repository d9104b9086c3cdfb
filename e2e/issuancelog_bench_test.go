package e2e

import (
	"context"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuancelog"
)

// BenchmarkIssuanceLogAppend: what the issuance log adds to a large issuance, both figures from one run. It issues
// to BADGED_BENCH_RECIPIENTS recipients (default 1,000; 2,000–10,000 for the figure) end to end on the embedded
// stack, checks the organization's log (every credential once, no gap, each checkpoint the tree hash of the entries
// before it), then replays exactly the appends the anchor step made (the same entries in the same batches, one
// transaction each: row lock, dedupe, tlog hashes, inserts, checkpoint signature) into a fresh organization's log,
// timed alone. Goal: the appends cost ≤ 5% of the issuance time.
func BenchmarkIssuanceLogAppend(b *testing.B) {
	n := benchRecipients(b)
	s := newStack(b, stackOptions{anchorWait: activities.DefaultAnchorWait})
	tn := s.mustTenant(b, int64(n*b.N))
	ctx := context.Background()
	var issuance, appends time.Duration
	for i := range b.N {
		b.StopTimer()
		body := issuanceBody(b, tn.Program, emailRecipients("logbench"+uuid.NewString()[:6], n), "")
		before := int64(s.count(b, "SELECT count(*) FROM issuance_log_entries WHERE org_id = $1", tn.Org.ID))
		b.StartTimer()
		start := time.Now()
		id := s.mustIssue(b, "v3", tn.Key, tn.Badge, "logbench-"+uuid.NewString(), body)
		require.Equal(b, "COMPLETED", s.waitIssuance(b, "v3", tn.Key, id, 55*time.Minute)["processingStatus"])
		issuance += time.Since(start)
		b.StopTimer()
		var ids []uuid.UUID
		for _, row := range s.assertionRows(b, id) {
			ids = append(ids, row.ID)
		}
		requireLogIntact(b, s, tn.Org.ID, ids)

		// The batches the anchor step appended: the checkpoints signed during this issuance.
		rows, err := s.DB.Pool.Query(ctx, "SELECT tree_size FROM issuance_log_checkpoints WHERE org_id = $1 AND tree_size > $2 ORDER BY tree_size", tn.Org.ID, before)
		require.NoError(b, err)
		var cuts []int64
		for rows.Next() {
			var size int64
			require.NoError(b, rows.Scan(&size))
			cuts = append(cuts, size)
		}
		require.NoError(b, rows.Err())
		entries, err := s.DB.ReadIssuanceLogEntries(ctx, db.ReadIssuanceLogEntriesParams{OrgID: tn.Org.ID, Lo: before, Hi: before + int64(n)})
		require.NoError(b, err)
		replay := s.mustTenant(b, 1).Org.ID
		_, key, _ := ed25519.GenerateKey(nil)
		lo := before
		for _, hi := range cuts {
			batch := make([]issuancelog.Entry, 0, hi-lo)
			for _, r := range entries[lo-before : hi-before] {
				e, err := issuancelog.ParseEntry(r.Entry)
				require.NoError(b, err)
				batch = append(batch, e)
			}
			t0 := time.Now()
			require.NoError(b, s.DB.InTx(ctx, func(q *db.Queries) error {
				_, err := issuancelog.Append(ctx, q, issuancelog.Origin(s.BaseURL, replay), replay, key, batch, nil)
				return err
			}))
			appends += time.Since(t0)
			lo = hi
		}
		b.Logf("issuance %d: %d recipients in %s; its %d log batches appended again alone in %s", i, n,
			issuance.Round(time.Millisecond), len(cuts), appends.Round(time.Millisecond))
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(issuance.Seconds()/float64(b.N), "issuance-s")
	b.ReportMetric(appends.Seconds()/float64(b.N), "log-append-s")
	b.ReportMetric(100*appends.Seconds()/issuance.Seconds(), "append-%")
}
