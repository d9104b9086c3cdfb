package catalog_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/db"
)

// seedOrgPage gives the fixture's organization benchOrgPrograms visible programs, each with a badge of its own, and
// benchOrgAssertions live assertions spread evenly over the badges (70% RECEIVED, 20% ISSUED, 10% REVOKED; a
// third of them with an expiry, part past).
const (
	benchOrgPrograms   = 1000
	benchOrgAssertions = 100_000
)

var seedOrgPage = []string{
	`INSERT INTO badges (id, org_id, name, description, criteria, category_code, image_id, skills, created_at)
	 SELECT md5('b' || g)::uuid, b.org_id, 'Badge ' || g, 'What badge ' || g || ' means, in a line or two.', b.criteria,
	        b.category_code, b.image_id, b.skills, now() - g * interval '1 minute'
	 FROM badges b, generate_series(1, 999) g WHERE b.id = $1`,
	`INSERT INTO programs (id, org_id, name, description, category_code, visible_on_org_page, image_id, created_at)
	 SELECT md5('p' || g)::uuid, p.org_id, 'Program ' || g, 'A program', 'EDUCATION', true, p.image_id, now() - g * interval '1 minute'
	 FROM programs p, generate_series(1, 999) g WHERE p.id = $2 AND $1::uuid IS NOT NULL`,
	`INSERT INTO program_badges (org_id, program_id, badge_id) SELECT b.org_id, md5('p' || g)::uuid, md5('b' || g)::uuid
	 FROM badges b, generate_series(1, 999) g WHERE b.id = $1`,
	`UPDATE programs SET visible_on_org_page = true WHERE id = $2 AND $1::uuid IS NOT NULL`,
	`INSERT INTO issuances (id, org_id, badge_id, program_id, api_version, mode, idempotency_key, request_hash, issued_at,
	                       processing_status, assertion_count, credits_debited, workflow_id)
	 SELECT md5('i' || g)::uuid, b.org_id, CASE WHEN g = 0 THEN $1 ELSE md5('b' || g)::uuid END,
	        CASE WHEN g = 0 THEN $2 ELSE md5('p' || g)::uuid END, 3, 'live', 'bench-' || g, '\x00', now(), 'COMPLETED', 100, 100, 'wf-' || g
	 FROM badges b, generate_series(0, 999) g WHERE b.id = $1`,
	`INSERT INTO assertions (id, org_id, issuance_id, badge_id, program_id, mode, api_version, seq, serial_number,
	                        recipient_name, recipient_email, receive_type, state, issued_at, expired_at)
	 SELECT md5('a' || g || '-' || s)::uuid, i.org_id, i.id, i.badge_id, i.program_id, 'live', 3, s, 'bench-' || g || '-' || s,
	        'Recipient ' || s, 'r' || g || '-' || s || '@example.com', 'EMAIL',
	        (ARRAY['RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','RECEIVED','ISSUED','ISSUED','REVOKED'])[1 + s % 10],
	        now() - interval '1 day', CASE WHEN s % 3 = 0 THEN now() + (s - 50) * interval '1 day' END
	 FROM generate_series(0, 999) g, generate_series(0, 99) s, issuances i WHERE i.id = md5('i' || g)::uuid`,
	`VACUUM ANALYZE assertions`, // as autovacuum leaves a table: the holders' index-only scans need its visibility map
	`ANALYZE`,
}

// BenchmarkOrgPage measures the organization's page (GET /issuers/{orgId} as a browser asks it, through the HTTP
// server) of an organization with 1,000 visible programs and 100,000 assertions: its first page and its last (the
// 20th), and reports the p50 and p99 of 200 requests each. The seed takes a few seconds:
//
//	go test -run '^$' -bench OrgPage -benchtime 1x ./catalog/
func BenchmarkOrgPage(b *testing.B) {
	e := apitest.New(b)
	ctx := context.Background()
	for _, stmt := range seedOrgPage {
		var args []any // $1 the fixture's badge, $2 its program
		if strings.Contains(stmt, "$1") {
			args = append(args, uuid.MustParse(e.Badge()))
		}
		if strings.Contains(stmt, "$2") {
			args = append(args, uuid.MustParse(e.Program()))
		}
		_, err := e.DB.Pool.Exec(ctx, stmt, args...)
		require.NoError(b, err, stmt)
	}
	var n int
	require.NoError(b, e.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM assertions WHERE org_id = $1", e.Org.ID).Scan(&n))
	require.Equal(b, benchOrgAssertions, n)
	// The page's three queries alone, to tell the database's share from rendering and HTTP.
	b.Run("queries_page_1", func(b *testing.B) {
		var times []time.Duration
		for b.Loop() {
			for range 200 {
				start := time.Now()
				_, err := e.DB.GetOrganization(ctx, e.Org.ID)
				require.NoError(b, err)
				progs, err := e.DB.ListOrgPagePrograms(ctx, db.ListOrgPageProgramsParams{OrgID: e.Org.ID, Lim: 50})
				require.NoError(b, err)
				ids := make([]uuid.UUID, len(progs))
				for i, p := range progs {
					ids[i] = p.ID
				}
				rows, err := e.DB.ListProgramPageBadges(ctx, ids)
				require.NoError(b, err)
				require.Len(b, rows, 50)
				times = append(times, time.Since(start))
			}
		}
		slices.Sort(times)
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50_ms")
		b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99_ms")
	})
	for _, page := range []string{"1", "20"} {
		b.Run("page_"+page, func(b *testing.B) {
			url := e.Srv.URL + "/issuers/" + e.Org.ID.String() + "?page=" + page
			get := func() time.Duration {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				require.NoError(b, err)
				req.Header.Set("Accept", browser)
				start := time.Now()
				res, err := e.Srv.Client().Do(req)
				require.NoError(b, err)
				_, _ = io.Copy(io.Discard, res.Body) // the whole page
				res.Body.Close()
				require.Equal(b, http.StatusOK, res.StatusCode)
				return time.Since(start)
			}
			get() // warm
			var times []time.Duration
			for b.Loop() {
				for range 200 {
					times = append(times, get())
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50_ms")
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99_ms")
		})
	}
}
