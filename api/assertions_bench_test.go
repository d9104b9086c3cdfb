package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchAssertions is the size of the organization BenchmarkListAssertions1M lists.
const benchAssertions = 1_000_000

// seedStatements write benchAssertions live assertions of org $1 in 10,000 issuances of 100 over the year up to
// 2025-03-01, spread over badges $2..$4 and programs $5..$6. States are mixed (60% RECEIVED, 15% ISSUED, 10% FAILED,
// 5% each REVOKED, EXPIRED, PROCESSING); the one-month badge ($4) gives its assertions an expired_at, nearly all of
// them past. Every email is shared by 4 assertions, every phone by 2.
//
// The statement-level counter triggers keep assertion_counts in one aggregate per statement. params is how many
// of the arguments a statement takes.
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
       (ARRAY['RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED',
              'RECEIVED','RECEIVED','RECEIVED','ISSUED','ISSUED','ISSUED','FAILED','FAILED','REVOKED','EXPIRED',
              'PROCESSING'])[1 + (i * 7) % 20],
       ts, CASE WHEN (i / 100) % 3 = 2 THEN ts + interval '1 month' END, ts, ts
FROM generate_series(0, 999999) i,
     LATERAL (SELECT timestamptz '2024-03-01T00:00:00Z' + (i / 100) * interval '3153.6 seconds'
                     + (i % 100) * interval '1 millisecond' AS ts) t`, 6},
	// What the expiry job would have done by the end of the seeded year: lapsed assertions are EXPIRED.
	{`UPDATE assertions SET state = 'EXPIRED' WHERE org_id = $1 AND state IN ('ISSUED', 'RECEIVED')
  AND expired_at <= timestamptz '2025-03-01T00:00:00Z'`, 1},
	{`UPDATE organizations SET next_serial = 1000001 WHERE id = $1`, 1},
}

// BenchmarkListAssertions1M measures GET /public/v3/assertions through the handler for one organization with a
// million assertions. The setup (about a minute) runs only under -bench:
//
//	go test -run '^$' -bench ListAssertions1M -benchtime 20x -timeout 30m ./api/
func BenchmarkListAssertions1M(b *testing.B) {
	f := newIssFixture(b)
	ctx := context.Background()
	seedStart := time.Now()
	args := []any{f.org.ID, f.vars["{badge}"], f.vars["{badge2}"], f.vars["{badge1m}"], f.vars["{program}"], f.vars["{program2}"]}
	tx, err := f.d.Pool.Begin(ctx)
	require.NoError(b, err)
	for _, st := range seedStatements {
		_, err := tx.Exec(ctx, st.sql, args[:st.params]...)
		require.NoError(b, err, "%s", st.sql)
	}
	require.NoError(b, tx.Commit(ctx))
	_, err = f.d.Pool.Exec(ctx, "ANALYZE")
	require.NoError(b, err)
	require.Equal(b, benchAssertions, countRows(b, f.d, "assertions", f.org))
	b.Logf("seeded %d assertions in %s", benchAssertions, time.Since(seedStart).Round(time.Second))

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
}
