package workflows

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/notify"
)

// nopSender accepts every message: the benchmark measures the sweep, not a mail server.
type nopSender struct{}

func (nopSender) Send(_ context.Context, n notify.Notification) (notify.Receipt, error) {
	return notify.Receipt{Channel: n.Channel, MessageID: n.AssertionID}, nil
}

// BenchmarkReminderSweep measures the reminder rounds over BADGED_BENCH_REMINDER_ASSERTIONS live assertions
// (100,000 by default; 1000000 for the README's figure) of one badge with the policy [30, 7], their expiries
// spread evenly over two years: the first round (claims and sends the 30-day reminders of the ~4% within 30 days)
// and a steady round an interval later (little or nothing new due), which every ReminderInterval costs; then the
// Postgres cost of one steady claim statement (EXPLAIN ANALYZE BUFFERS, rolled back) and the claim rows' size. The
// Temporal side is not timed here: one activity and one timer per round whatever the count (README Measurements).
func BenchmarkReminderSweep(b *testing.B) {
	n := 100000
	if s := os.Getenv("BADGED_BENCH_REMINDER_ASSERTIONS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(b, err)
	}
	ctx := context.Background()
	f := newRemindFixture(b, []int32{30, 7})
	f.acts.Outbox = nopSender{}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seed := f.issue(b, t0, holder{name: "Seed", channel: "EMAIL"})[0]
	start := time.Now()
	_, err := f.db.Pool.Exec(ctx, `INSERT INTO assertions (id, org_id, issuance_id, badge_id, program_id, mode,
			api_version, seq, serial_number, recipient_name, recipient_email, receive_type, state, step, issued_at, expired_at)
		SELECT gen_random_uuid(), s.org_id, s.issuance_id, s.badge_id, s.program_id, 'live', 3, g, 'B-' || g,
		       'Bench ' || g, 'b' || g || '@example.com', 'EMAIL', 'ISSUED', 'NOTIFIED', $2::timestamptz,
		       $2::timestamptz + interval '1 minute' + (g * interval '730 days' / $3::int)
		FROM assertions s, generate_series(1, $3::int) g WHERE s.id = $1`, seed, t0, n)
	require.NoError(b, err)
	_, err = f.db.Pool.Exec(ctx, `ANALYZE assertions`)
	require.NoError(b, err)
	b.Logf("inserted %d assertions in %s", n, time.Since(start).Round(time.Millisecond))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		base := t0.Add(time.Duration(i) * 24 * time.Hour)
		first, d1 := benchSweep(b, f, base)
		steady, d2 := benchSweep(b, f, base.Add(ReminderInterval))
		b.Logf("round at %s: %+v in %s; %s later: %+v in %s", base.Format("01-02"), first, d1.Round(time.Millisecond),
			ReminderInterval, steady, d2.Round(time.Millisecond))
		b.ReportMetric(float64(d1.Milliseconds()), "first-round-ms")
		b.ReportMetric(float64(d2.Milliseconds()), "steady-round-ms")
		b.ReportMetric(float64(first.Sent), "first-round-sent")
		ms, hit, read := explainClaim(b, f, base.Add(2*ReminderInterval))
		b.Logf("a steady claim statement (rolled back): %.1f ms, %d shared buffers hit, %d read", ms, hit, read)
		b.ReportMetric(ms, "steady-claim-sql-ms")
		b.ReportMetric(float64(hit+read), "steady-claim-buffers")
	}
	var rows int64
	var size string
	require.NoError(b, f.db.Pool.QueryRow(context.Background(), `SELECT count(*),
		pg_size_pretty(pg_total_relation_size('expiry_reminders')) FROM expiry_reminders`).Scan(&rows, &size))
	b.Logf("expiry_reminders: %d rows, %s with its indexes", rows, size)
}

// explainClaim runs the sweep's claim statement at now under EXPLAIN (ANALYZE, BUFFERS) in a transaction it rolls
// back, and returns its execution time and the shared buffers it touched: the Postgres cost of one claim.
func explainClaim(b *testing.B, f *remindFixture, now time.Time) (ms float64, hit, read int64) {
	ctx := context.Background()
	tx, err := f.db.Pool.Begin(ctx)
	require.NoError(b, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var plan []struct {
		Plan struct {
			SharedHit  int64 `json:"Shared Hit Blocks"`
			SharedRead int64 `json:"Shared Read Blocks"`
		} `json:"Plan"`
		ExecutionTime float64 `json:"Execution Time"`
	}
	var raw []byte
	require.NoError(b, tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+db.ClaimDueRemindersSQL,
		now, activities.ReminderBatch, "bench-explain", activities.ReminderLease.Seconds()).Scan(&raw))
	require.NoError(b, json.Unmarshal(raw, &plan))
	require.Len(b, plan, 1)
	return plan[0].ExecutionTime, plan[0].Plan.SharedHit, plan[0].Plan.SharedRead
}

// benchSweep runs one round at now and returns what it did and how long it took.
func benchSweep(b *testing.B, f *remindFixture, now time.Time) (activities.ReminderResult, time.Duration) {
	start := time.Now()
	r, err := f.acts.SendExpiryReminders(context.Background(), activities.ReminderSweep{Now: now})
	require.NoError(b, err)
	return r, time.Since(start)
}
