package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
)

// BenchmarkReplayWhileProcessing replays the POST of a BADGED_BENCH_RECIPIENTS-recipient issuance (1,000 by
// default) while its pipeline runs on the embedded stack, two ways interleaved: "old" with the recorded workflow
// start and body bytes cleared first, so the handler decodes the body and calls Temporal's start (USE_EXISTING)
// as every replay did before issuances.workflow_started_at and body_sha256, and "new", answered from the row. Once the issuance is COMPLETED it replays it
// again ("after"). Every answer must be the same issuance; p99 of each and old/new are reported:
//
//	go test -run '^$' -bench ReplayWhileProcessing -benchtime 1x -timeout 30m ./e2e/
func BenchmarkReplayWhileProcessing(b *testing.B) {
	n := benchRecipients(b)
	s := newStack(b, stackOptions{anchorWait: activities.DefaultAnchorWait})
	tn := s.mustTenant(b, int64(n*b.N))
	ctx := context.Background()
	var old, fresh, after []time.Duration
	replay := func(key, body, id string, into *[]time.Duration) string {
		start := time.Now()
		d := s.postIssuance(b, "v3", tn.Key, tn.Badge, key, body).data(b)
		*into = append(*into, time.Since(start))
		require.Equal(b, id, d["id"], "a replay answers the same issuance")
		return d["processingStatus"].(string)
	}
	for i := range b.N {
		body := issuanceBody(b, tn.Program, emailRecipients(fmt.Sprintf("replay%d", i), n), "")
		key := "replay-" + uuid.NewString()
		id := s.mustIssue(b, "v3", tn.Key, tn.Badge, key, body)
		status := "PROCESSING"
		var bodySum []byte
		require.NoError(b, s.DB.Pool.QueryRow(ctx, "SELECT body_sha256 FROM issuances WHERE id = $1", id).Scan(&bodySum))
		for status == "PROCESSING" {
			// The old path: no recorded start and no recorded bytes, so the body is decoded, hashed and compared
			// in a transaction, then Temporal's start is called; the bytes are put back for the new path.
			_, err := s.DB.Pool.Exec(ctx, "UPDATE issuances SET workflow_started_at = NULL, body_sha256 = NULL WHERE id = $1", id)
			require.NoError(b, err)
			st := replay(key, body, id, &old)
			_, err = s.DB.Pool.Exec(ctx, "UPDATE issuances SET body_sha256 = $2 WHERE id = $1", id, bodySum)
			require.NoError(b, err)
			if st != "PROCESSING" {
				old = old[:len(old)-1] // it finished meanwhile: not a replay during processing
				break
			}
			status = replay(key, body, id, &fresh)
			if status != "PROCESSING" {
				fresh = fresh[:len(fresh)-1]
			}
		}
		require.Equal(b, "COMPLETED", s.waitIssuance(b, "v3", tn.Key, id, 30*time.Minute)["processingStatus"])
		for range 50 {
			require.Equal(b, "COMPLETED", replay(key, body, id, &after))
		}
		require.Equal(b, 1, s.countWorkflows(b, id), "replays start no second workflow")
	}
	require.NotEmpty(b, fresh, "no replay happened while the issuance was processing")
	o, f, a := statsOf(old), statsOf(fresh), statsOf(after)
	b.Logf("%d recipients, replays during processing: old n=%d p50 %.1f ms p99 %.1f ms max %.1f ms; new n=%d p50 %.1f ms p99 %.1f ms max %.1f ms; after COMPLETED n=%d p50 %.1f ms p99 %.1f ms",
		n, o.n, ms(o.p50), ms(o.p99), ms(o.max), f.n, ms(f.p50), ms(f.p99), ms(f.max), a.n, ms(a.p50), ms(a.p99))
	slow := 0
	for _, d := range fresh {
		if d > 100*time.Millisecond {
			slow++
		}
	}
	b.Logf("new replays over 100 ms: %d of %d", slow, len(fresh))
	b.ReportMetric(ms(o.p99), "old-p99-ms")
	b.ReportMetric(ms(f.p99), "new-p99-ms")
	b.ReportMetric(ms(a.p99), "after-p99-ms")
	b.ReportMetric(ms(o.p99)/ms(f.p99), "x-p99-old/new")
}
