package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
)

// benchAssertions is the size of the organization BenchmarkListAssertions1M lists.
const benchAssertions = 1_000_000

// seedStatements write benchAssertions live assertions of org $1 in 10,000 issuances of 100 over the year up to
// 2025-03-01, spread over badges $2..$4 and programs $5..$6. States are mixed (60% RECEIVED, 15% ISSUED, 10% FAILED,
// 5% each REVOKED, EXPIRED, PROCESSING); the one-month badge ($4) gives its assertions an expired_at, nearly all of
// them past, and those already past are EXPIRED, as the expiry job would have left them by the end of the year
// (written so by the insert itself: a second pass would rewrite 230,000 rows). Every email is shared by 4
// assertions, every phone by 2.
//
// The statement-level counter triggers keep assertion_counts and assertion_hour_counts in one aggregate per
// statement. params is how many of the arguments a statement takes.
var seedStatements = []struct {
	sql    string
	params int
}{
	{`INSERT INTO issuances (id, org_id, badge_id, program_id, api_version, mode, idempotency_key, request_hash, issued_at,
                       expired_at, processing_status, assertion_count, credits_debited, workflow_id, created_at, updated_at)
SELECT md5('iss' || j)::uuid, $1, (ARRAY[$2, $3, $4]::uuid[])[1 + j % 3], (ARRAY[$5, $6]::uuid[])[1 + j % 2], 3, 'live',
       'bench-' || j, '\x00', ts, NULL, 'COMPLETED', 100, 100, 'wf-' || j, ts, ts
FROM generate_series(0, 9999) j,
     LATERAL (SELECT timestamptz '2024-03-01T00:00:00Z' + j * interval '3153.6 seconds' AS ts) t`, 6},
	{`INSERT INTO assertions (id, org_id, issuance_id, badge_id, program_id, mode, api_version, seq, serial_number,
                        recipient_name, recipient_email, recipient_phone, recipient_sourced_id, receive_type, state,
                        issued_at, expired_at, created_at, updated_at)
SELECT md5('a' || i)::uuid, $1, md5('iss' || (i / 100))::uuid, (ARRAY[$2, $3, $4]::uuid[])[1 + (i / 100) % 3],
       (ARRAY[$5, $6]::uuid[])[1 + (i / 100) % 2], 'live', 3, i % 100, 'bench-' || lpad(i::text, 8, '0'),
       'Recipient ' || i, 'user' || (i % 250000) || '@example.com', '+8210' || lpad((i % 500000)::text, 8, '0'),
       's-' || i, 'EMAIL',
       CASE WHEN st IN ('ISSUED', 'RECEIVED') AND exp <= timestamptz '2025-03-01T00:00:00Z' THEN 'EXPIRED' ELSE st END,
       ts, exp, ts, ts
FROM generate_series(0, 999999) i,
     LATERAL (SELECT timestamptz '2024-03-01T00:00:00Z' + (i / 100) * interval '3153.6 seconds'
                     + (i % 100) * interval '1 millisecond' AS ts) t,
     LATERAL (SELECT CASE WHEN (i / 100) % 3 = 2 THEN ts + interval '1 month' END AS exp,
                     (ARRAY['RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED',
                            'RECEIVED','RECEIVED','RECEIVED','RECEIVED','ISSUED','ISSUED','ISSUED','FAILED','FAILED',
                            'REVOKED','EXPIRED','PROCESSING'])[1 + (i * 7) % 20] AS st) s`, 6},
	{`UPDATE organizations SET next_serial = 1000001 WHERE id = $1`, 1},
}

// BenchmarkListAssertions1M measures GET /public/v3/assertions through the handler for one organization with a
// million assertions. The setup (about a minute) runs only under -bench:
//
//	go test -run '^$' -bench ListAssertions1M -benchtime 20x -timeout 30m ./api/
func BenchmarkListAssertions1M(b *testing.B) {
	f := newIssFixture(b)
	ctx := context.Background()
	seed1M(b, f)
	// The clock stands at the end of the seeded year, so part of the one-month badge's assertions read EXPIRED.
	handler := newIssuanceHandler(b, f.d, f.starter, func() time.Time { return time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC) })
	var issuance string
	require.NoError(b, f.d.Pool.QueryRow(ctx, "SELECT md5('iss' || 4321)::uuid::text").Scan(&issuance))
	cases := []struct{ name, query string }{
		{"no_filter", ""},
		{"badgeId", "badgeId=" + f.vars["{badge}"]},
		{"stateCode_FAILED", "stateCode=FAILED"},
		{"stateCode_RECEIVED_lapsed_corrected", "stateCode=RECEIVED"},
		{"email", "email=user12345@example.com"},
		{"issuanceId", "issuanceId=" + issuance},
		{"month_range", "startAt=2024-09-01T00:00:00Z&endAt=2024-09-30T23:59:59Z"},
		{"page_500", "page=500"},
		// Repeated sort: mixed directions take an Incremental Sort over the (created_at DESC, id DESC) indexes.
		{"sort_createdAt_asc", "sort=createdAt,asc"},
		{"sort_mixed", "sort=createdAt,desc&sort=id,asc"},
		{"sort_mixed_page_500", "sort=createdAt,asc&sort=id,desc&page=500"},
		{"sort_mixed_badgeId", "badgeId=" + f.vars["{badge}"] + "&sort=createdAt,desc&sort=id,asc"},
		{"sort_mixed_issuanceId", "issuanceId=" + issuance + "&sort=createdAt,desc&sort=id,asc"},
		{"sort_id", "sort=id,asc"},
	}
	key := f.keys["viewer"]
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			target := "/public/v3/assertions?" + c.query
			serve := func() *httptest.ResponseRecorder {
				req := httptest.NewRequestWithContext(ctx, http.MethodGet, target, nil)
				req.Header.Set("X-API-KEY", key)
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, req)
				return rec
			}
			rec := serve() // warm the caches once and check the answer
			require.Equal(b, http.StatusOK, rec.Code, "%s", rec.Body)
			for b.Loop() {
				if rec := serve(); rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", target, rec.Code, rec.Body)
				}
			}
		})
	}
	b.Run("month_range_p99", func(b *testing.B) { benchMonthRange(b, f, handler) })
}

// rangeSamples is how many times BenchmarkListAssertions1M/month_range_p99 runs each path per iteration.
const rangeSamples = 300

// benchMonthRange measures a one-month startAt/endAt page three ways, interleaved so that the load of a shared
// machine falls on all of them alike: "old_sql" is the two queries the handler ran before the hour counters (the
// exact CountAssertions, then the page), "new_sql" the two it runs now, and "handler" the whole request. It checks
// first that both totals agree with the response.
func benchMonthRange(b *testing.B, f *issFixture, handler http.Handler) {
	ctx := context.Background()
	const target = "/public/v3/assertions?startAt=2024-09-01T00:00:00Z&endAt=2024-09-30T23:59:59Z"
	startAt, endAt := time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 9, 30, 23, 59, 59, 0, time.UTC)
	endBefore := endAt.Add(time.Microsecond)
	wholeFrom, wholeTo := startAt, endBefore.Truncate(time.Hour)
	now := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	page := db.ListAssertionsParams{OrgID: f.org.ID, StartAt: &startAt, EndAt: &endAt, Now: now, CreatedDesc: true, IDDesc: true, Lim: 20}
	oldCount := func() int64 {
		n, err := f.d.CountAssertions(ctx, db.CountAssertionsParams{OrgID: f.org.ID, StartAt: &startAt, EndAt: &endAt, Now: now})
		require.NoError(b, err)
		_, err = f.d.ListAssertions(ctx, page)
		require.NoError(b, err)
		return n
	}
	newCount := func() int64 {
		n, err := f.d.CountAssertionsByHours(ctx, db.CountAssertionsByHoursParams{OrgID: f.org.ID,
			WholeFrom: &wholeFrom, WholeTo: &wholeTo, StartAt: &startAt, EndBefore: &endBefore})
		require.NoError(b, err)
		_, err = f.d.ListAssertions(ctx, page)
		require.NoError(b, err)
		return n
	}
	serve := func() []byte {
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		req.Header.Set("X-API-KEY", f.keys["viewer"])
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		require.Equal(b, http.StatusOK, rec.Code, "%s", rec.Body)
		return rec.Body.Bytes()
	}
	want := oldCount()
	require.Positive(b, want)
	require.Equal(b, want, newCount(), "the hour counters and the exact count disagree")
	require.Contains(b, string(serve()), `"totalElement":`+strconv.FormatInt(want, 10)+`,`)

	old, fresh, whole := &latencies{name: "old_sql"}, &latencies{name: "new_sql"}, &latencies{name: "handler"}
	for b.Loop() {
		for range rangeSamples {
			old.time(func() { oldCount() })
			fresh.time(func() { newCount() })
			whole.time(func() { serve() })
		}
	}
	old.report(b)
	fresh.report(b)
	whole.report(b)
	reportRatio(b, old, whole)
}

// seed1M writes the seedStatements in one transaction. The secondary indexes of assertions are dropped for the
// load and built again from their own definitions afterwards: building an index once is several times cheaper than
// a million random insertions into each. VACUUM then leaves the table as autovacuum would have long before anyone
// lists a month of a year-old data set (visibility map set, statistics fresh), the best case of the exact count.
func seed1M(b *testing.B, f *issFixture) {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	args := []any{f.org.ID, f.vars["{badge}"], f.vars["{badge2}"], f.vars["{badge1m}"], f.vars["{program}"], f.vars["{program2}"]}
	tx, err := f.d.Pool.Begin(ctx)
	require.NoError(b, err)
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after Commit
	rows, err := tx.Query(ctx, `SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index i
		WHERE indrelid = 'assertions'::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`)
	require.NoError(b, err)
	var names, defs []string
	for rows.Next() {
		var name, def string
		require.NoError(b, rows.Scan(&name, &def))
		names, defs = append(names, name), append(defs, def)
	}
	require.NoError(b, rows.Err())
	require.NotEmpty(b, defs, "the secondary indexes of assertions")
	_, err = tx.Exec(ctx, "DROP INDEX "+strings.Join(names, ", "))
	require.NoError(b, err)
	for _, st := range seedStatements {
		_, err := tx.Exec(ctx, st.sql, args[:st.params]...)
		require.NoError(b, err, "%s", st.sql)
	}
	_, err = tx.Exec(ctx, "SET LOCAL maintenance_work_mem = '256MB'")
	require.NoError(b, err)
	for _, def := range defs {
		_, err := tx.Exec(ctx, def)
		require.NoError(b, err, "%s", def)
	}
	require.NoError(b, tx.Commit(ctx))
	_, err = f.d.Pool.Exec(ctx, "VACUUM (ANALYZE) assertions")
	require.NoError(b, err)
	_, err = f.d.Pool.Exec(ctx, "ANALYZE")
	require.NoError(b, err)
	require.Equal(b, benchAssertions, countRows(b, f.d, "assertions", f.org))
	b.Logf("seeded %d assertions (%d indexes rebuilt) in %s", benchAssertions, len(defs), time.Since(start).Round(time.Second))
}
