package console_test

import (
	"cmp"
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// copyAssertions makes n-1 more recipients of the issuance of assertion a (seq 1…n-1), one in ten FAILED with an
// error code, as a large issuance that partly failed looks: one set-based INSERT … SELECT over generate_series,
// every column copied as it is but those overridden. (A row-wise jsonb round trip of the assertion, credential
// included, cost 2.5 ms a row: minutes for 100,000.)
func copyAssertions(tb testing.TB, f *fixture, a uuid.UUID, n int) {
	tb.Helper()
	ctx := context.Background()
	over := map[string]string{"id": "gen_random_uuid()", "seq": "g", "serial_number": "a.serial_number || '-' || g",
		"recipient_email": "'r' || g || '@example.test'", "state": "CASE WHEN g % 10 = 0 THEN 'FAILED' ELSE 'ISSUED' END",
		"error_code": "CASE WHEN g % 10 = 0 THEN 'NTF001' END"}
	rows, err := f.DB.Pool.Query(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'assertions' AND is_generated = 'NEVER' ORDER BY ordinal_position`)
	require.NoError(tb, err)
	var cols, vals []string
	for rows.Next() {
		var c string
		require.NoError(tb, rows.Scan(&c))
		cols = append(cols, c)
		vals = append(vals, cmp.Or(over[c], "a."+c))
	}
	require.NoError(tb, rows.Err())
	_, err = f.DB.Pool.Exec(ctx, "INSERT INTO assertions ("+strings.Join(cols, ", ")+") SELECT "+strings.Join(vals, ", ")+
		" FROM assertions a, generate_series(1, $2 - 1) g WHERE a.id = $1", a, n)
	require.NoError(tb, err)
}

// copyIssuances makes n-1 more issuances like issuance i, a minute apart going back.
const copyIssuances = `INSERT INTO issuances SELECT (jsonb_populate_record(NULL::issuances, to_jsonb(i) || jsonb_build_object(
    'id', gen_random_uuid(), 'idempotency_key', 'bench-' || g, 'workflow_id', 'bench-' || g,
    'created_at', i.created_at - g * interval '1 minute'))).*
FROM issuances i, generate_series(1, $2 - 1) g WHERE i.id = $1`

// benchPages GETs path as who b.N times, one request at a time, and reports the p50 and p99 latencies.
func benchPages(b *testing.B, f *fixture, who, path string) {
	b.Helper()
	client := f.srv.Client()
	get := func() time.Duration {
		req, err := http.NewRequest(http.MethodGet, f.srv.URL+path, nil)
		require.NoError(b, err)
		req.AddCookie(&http.Cookie{Name: "test_session", Value: who})
		start := time.Now()
		res, err := client.Do(req)
		require.NoError(b, err)
		_ = res.Body.Close()
		d := time.Since(start)
		require.Equal(b, http.StatusOK, res.StatusCode)
		return d
	}
	get() // warm: connection, plans
	var ds []time.Duration
	b.ResetTimer()
	for b.Loop() {
		ds = append(ds, get())
	}
	b.StopTimer()
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[(len(ds)*99)/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkConsole_Issuance100k: the console page of an issuance of 100,000 recipients (a tenth failed): counts by
// state and error code, and the first page of recipients. Goal: p99 ≤ 100 ms.
func BenchmarkConsole_Issuance100k(b *testing.B) {
	f := newFixtureTB(b)
	ctx := context.Background()
	a := f.IssueSigned(b, "Kim", "kim@example.test")
	var iss uuid.UUID
	require.NoError(b, f.DB.Pool.QueryRow(ctx, "SELECT issuance_id FROM assertions WHERE id = $1", a).Scan(&iss))
	start := time.Now()
	copyAssertions(b, f, a, 100_000)
	_, err := f.DB.Pool.Exec(ctx, "VACUUM ANALYZE assertions") // what autovacuum does after a large insert
	require.NoError(b, err)
	b.Logf("fixture of 100,000 recipients built in %s", time.Since(start).Round(time.Millisecond))
	b.Run("page", func(b *testing.B) { benchPages(b, f, viewer, "/console/issuances/"+iss.String()) })
	b.Run("failed", func(b *testing.B) {
		benchPages(b, f, viewer, "/console/issuances/"+iss.String()+"?errorCode=NTF001&after=50000")
	})
}

// BenchmarkConsole_Issuances10k: the issuances list of an organization with 10,000 issuances, first page and a
// deep page (keyset). Goal: p99 ≤ 50 ms.
func BenchmarkConsole_Issuances10k(b *testing.B) {
	f := newFixtureTB(b)
	ctx := context.Background()
	a := f.IssueSigned(b, "Kim", "kim@example.test")
	var iss uuid.UUID
	var at time.Time
	require.NoError(b, f.DB.Pool.QueryRow(ctx, "SELECT i.id, i.created_at FROM assertions a JOIN issuances i ON i.id = a.issuance_id WHERE a.id = $1", a).Scan(&iss, &at))
	_, err := f.DB.Pool.Exec(ctx, copyIssuances, iss, 10_000)
	require.NoError(b, err)
	_, err = f.DB.Pool.Exec(ctx, "VACUUM ANALYZE issuances")
	require.NoError(b, err)
	deep := at.Add(-9000*time.Minute).UTC().Format(time.RFC3339Nano) + "_" + uuid.Nil.String()
	b.Run("first", func(b *testing.B) { benchPages(b, f, viewer, "/console/issuances") })
	b.Run("deep", func(b *testing.B) { benchPages(b, f, viewer, "/console/issuances?after="+deep) })
	b.Run("status", func(b *testing.B) { benchPages(b, f, viewer, "/console/issuances?status=COMPLETED") })
}
