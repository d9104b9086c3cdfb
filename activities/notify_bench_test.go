package activities

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
)

// BenchmarkNotifyChunk runs the notify step on a chunk of 100 live v3 recipients (each with a wallet offer),
// delivering to a sender that drops the messages, from a fresh state each iteration (no notification, no offer).
// It reports the statements the step sends to Postgres per chunk (round trips, counted by a pgx tracer); -v lists
// them by query name.
//
//	go test -run '^$' -bench NotifyChunk -benchtime 20x -v ./activities/
func BenchmarkNotifyChunk(b *testing.B) {
	f := mustFixture(b)
	ctx := context.Background()
	recipients := make([]recipient, 100)
	for i := range recipients {
		recipients[i] = recipient{Step: StepPublished}
	}
	_, ids := f.mustIssuance(b, "live", 3, recipients...)
	count := &statementCounter{byName: map[string]int{}}
	traced := tracedDB(b, f.DB, count)
	f.acts.DB = traced
	f.acts.Issuer = issuer.New(traced, nil, "https://badges.example")
	f.acts.Outbox = dropSender{}
	step := f.acts.onChunk(StepPublished, f.acts.notifyRecipients)

	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for _, q := range []string{`DELETE FROM notifications WHERE assertion_id = ANY($1)`,
			`DELETE FROM credential_offers WHERE assertion_id = ANY($1)`,
			`UPDATE assertions SET step = '` + StepPublished + `' WHERE id = ANY($1)`} {
			_, err := f.DB.Pool.Exec(ctx, q, ids)
			require.NoError(b, err)
		}
		b.StartTimer()
		failed, err := step(ctx, ids)
		require.NoError(b, err)
		require.Empty(b, failed)
	}
	b.StopTimer()
	b.ReportMetric(float64(count.total)/float64(b.N), "statements/chunk")
	names := make([]string, 0, len(count.byName))
	for n := range count.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b.Logf("%-32s %6.1f per chunk", n, float64(count.byName[n])/float64(b.N))
	}
}

// dropSender accepts every message and sends nothing.
type dropSender struct{}

func (dropSender) Send(_ context.Context, n notify.Notification) (notify.Receipt, error) {
	return notify.Receipt{Channel: n.Channel}, nil
}

// statementCounter is a pgx tracer counting the statements sent, by sqlc query name ("-- name: X").
type statementCounter struct {
	mu     sync.Mutex
	total  int
	byName map[string]int
}

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	name := "(other)"
	if rest, ok := strings.CutPrefix(d.SQL, "-- name: "); ok {
		name, _, _ = strings.Cut(rest, " ")
	}
	c.mu.Lock()
	c.total++
	c.byName[name]++
	c.mu.Unlock()
	return ctx
}

func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// tracedDB opens a second pool on d's database, configured as db.Open does, whose statements tracer sees.
func tracedDB(tb testing.TB, d *db.DB, tracer pgx.QueryTracer) *db.DB {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(dbtest.URL(tb, d))
	require.NoError(tb, err)
	for k, v := range d.Pool.Config().ConnConfig.RuntimeParams {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	cfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return &db.DB{Queries: db.New(pool), Pool: pool}
}
