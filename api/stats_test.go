package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/stats"
)

const (
	browserUA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
	crawlerUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
)

// statsFixture is an organization whose API counts badge events into rec (flushed by the test, never by a timer).
type statsFixture struct {
	*fixture
	rec     *stats.Recorder
	metrics *metrics.Metrics
	store   blob.Store
	issuer  *issuer.Service
	testKey string
}

func newStatsFixture(tb testing.TB) *statsFixture {
	tb.Helper()
	f := &statsFixture{fixture: newFixture(tb), metrics: metrics.New()}
	var err error
	f.store, err = blob.NewLocal(tb.TempDir())
	require.NoError(tb, err)
	ring, err := credential.NewKeyring("test:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	require.NoError(tb, err)
	f.issuer = issuer.New(f.d, ring, baseURL)
	f.rec = stats.NewRecorder(f.d, stats.Options{Clock: func() time.Time { return fixedNow }, Metrics: f.metrics})
	f.env = &env{d: f.d, srv: f.server(tb, f.rec)}
	f.testKey = mustModeKey(tb, f.d, f.org, apikey.RoleOwner, apikey.ModeTest)
	_, err = f.store.PutIfAbsent(context.Background(), issuer.MediaKey(f.vars["{image}"], "medium", "png"), mustPNG(tb, 64, 64, false), "image/png")
	require.NoError(tb, err)
	return f
}

// server starts an API process on the fixture's database that counts into rec: a second one with its own
// recorder is a second API process of the deployment.
func (f *statsFixture) server(tb testing.TB, rec *stats.Recorder) *httptest.Server {
	return startServer(tb, api.NewHandler(api.Deps{DB: f.d, Blob: f.store, PublicBaseURL: baseURL,
		Clock: func() time.Time { return fixedNow }, Issuances: &fakeStarter{}, Metrics: f.metrics, Stats: rec, Issuer: f.issuer,
		Log: slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))}))
}

// issue issues one recipient with key and marks the assertion issued with a stored credential document, as the
// pipeline would (unsigned: its page says it cannot vouch for it, which counts the same); it returns the issuance
// and assertion ids.
func (f *statsFixture) issue(tb testing.TB, key string) (string, string) {
	tb.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, f.srv.URL+"/public/v3/badges/"+f.vars["{badge}"]+"/issuances",
		strings.NewReader(f.expand(`{"programId":"{program}","issuedAt":"2025-02-01T00:00:00Z","recipients":[`+rcpt("Lee", "lee-"+uuid.NewString()+"@example.com")+`]}`)))
	require.NoError(tb, err)
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", uuid.NewString())
	res, err := f.srv.Client().Do(req)
	require.NoError(tb, err)
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(tb, http.StatusOK, res.StatusCode, "%s", raw)
	var iss, a string
	require.NoError(tb, f.d.Pool.QueryRow(context.Background(),
		"UPDATE assertions SET state = 'ISSUED', credential_key = 'credentials/' || id || '.json' WHERE issuance_id = (SELECT id FROM issuances ORDER BY created_at DESC LIMIT 1) RETURNING issuance_id, id").Scan(&iss, &a))
	_, err = f.store.PutIfAbsent(context.Background(), "credentials/"+a+".json", []byte(`{"id":"x"}`), "application/vc+ld+json")
	require.NoError(tb, err)
	return iss, a
}

// visitors numbers the client addresses hit gives, so each hit is another visitor (events count once per visitor).
var visitors atomic.Uint32

// hit sends a keyless request with a User-Agent (and Accept) from a client address of its own (X-Forwarded-For, as
// the deployment's proxy sets it) and returns its status, not following redirects.
func (f *statsFixture) hit(tb testing.TB, method, path, ua, accept string) *http.Response {
	tb.Helper()
	n := visitors.Add(1)
	return f.hitFrom(tb, f.srv, fmt.Sprintf("198.18.%d.%d", n/250%250, n%250+1), method, path, ua, accept)
}

// hitFrom is hit from the client address addr to srv.
func (f *statsFixture) hitFrom(tb testing.TB, srv *httptest.Server, addr, method, path, ua, accept string) *http.Response {
	tb.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, srv.URL+path, nil)
	require.NoError(tb, err)
	req.Header.Set("User-Agent", ua)
	req.Header.Set("X-Forwarded-For", addr)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	c := *f.srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.Do(req)
	require.NoError(tb, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func (f *statsFixture) flush(tb testing.TB) {
	tb.Helper()
	require.NoError(tb, f.rec.Flush(context.Background()))
}

func (f *statsFixture) statsOf(tb testing.TB, key, path string) map[string]any {
	tb.Helper()
	return f.mustOK(tb, http.MethodGet, path, key, "")
}

func num(tb testing.TB, v map[string]any, path string) int {
	tb.Helper()
	n, ok := jget(tb, v, path).(float64)
	require.True(tb, ok, "%s is not a number", path)
	return int(n)
}

// TestStats_CountsExactAfterFlush: every kind of event, humans and bots apart, exact once flushed, in the badge's
// and the issuance's roll-up, in total and on its day; HEADs, unknown networks and failed requests count nothing.
// Each hit comes from another visitor (hit); TestStats_OncePerVisitor repeats one.
func TestStats_CountsExactAfterFlush(t *testing.T) {
	f := newStatsFixture(t)
	iss, a := f.issue(t, f.keys["owner"])
	_, other := f.issue(t, f.keys["owner"]) // same badge, another issuance
	var token string
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT certificate_token::text FROM assertions WHERE id = $1", a).Scan(&token))

	for range 3 {
		require.Equal(t, 200, f.hit(t, http.MethodGet, "/verify/"+a, browserUA, "").StatusCode)
	}
	require.Equal(t, 200, f.hit(t, http.MethodGet, "/credentials/"+a, browserUA, "text/html").StatusCode, "the page by content negotiation")
	for range 2 {
		require.Equal(t, 200, f.hit(t, http.MethodGet, "/verify/"+a, crawlerUA, "").StatusCode)
	}
	require.Equal(t, 200, f.hit(t, http.MethodGet, "/verify/"+other, "", "").StatusCode, "no User-Agent: a bot")
	require.Equal(t, 200, f.hit(t, http.MethodHead, "/verify/"+a, browserUA, "").StatusCode, "a HEAD is no view")
	require.Equal(t, 404, f.hit(t, http.MethodGet, "/verify/"+uuid.NewString(), browserUA, "").StatusCode)

	require.Equal(t, 200, f.hit(t, http.MethodGet, "/credentials/"+a, "badged-verifier/1.0 (Go-http-client/1.1)", "application/json").StatusCode)
	require.Equal(t, 200, f.hit(t, http.MethodGet, "/credentials/"+a, browserUA, "application/vc+ld+json").StatusCode)

	require.Equal(t, 200, f.hit(t, http.MethodGet, "/credentials/"+a+"/certificate.pdf?token="+token, browserUA, "").StatusCode)
	require.Equal(t, 404, f.hit(t, http.MethodGet, "/credentials/"+a+"/certificate.pdf?token="+uuid.NewString(), browserUA, "").StatusCode)

	res := f.hit(t, http.MethodGet, "/share/"+a+"/linkedin-post", browserUA, "")
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.Equal(t, "https://www.linkedin.com/sharing/share-offsite/?url="+strings.ReplaceAll(baseURL+"/verify/"+a, ":", "%3A"), strings.ReplaceAll(res.Header.Get("Location"), "%2F", "/"))
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	res = f.hit(t, http.MethodGet, "/share/"+a+"/x", browserUA, "")
	require.Equal(t, http.StatusFound, res.StatusCode)
	require.True(t, strings.HasPrefix(res.Header.Get("Location"), "https://x.com/intent/post?text="), res.Header.Get("Location"))
	res = f.hit(t, http.MethodGet, "/share/"+a+"/email", browserUA, "")
	require.True(t, strings.HasPrefix(res.Header.Get("Location"), "mailto:?subject="), res.Header.Get("Location"))
	require.NotContains(t, res.Header.Get("Location"), "+", "mailto: spaces are %20")
	require.Equal(t, baseURL+"/verify/"+a, f.hit(t, http.MethodGet, "/share/"+a+"/copy", browserUA, "").Header.Get("Location"))
	require.Equal(t, http.StatusNoContent, f.hit(t, http.MethodPost, "/share/"+a+"/copy", browserUA, "").StatusCode, "a script's beacon")
	require.Equal(t, http.StatusFound, f.hit(t, http.MethodGet, "/share/"+a+"/facebook", crawlerUA, "").StatusCode)
	require.Equal(t, 404, f.hit(t, http.MethodGet, "/share/"+a+"/myspace", browserUA, "").StatusCode, "not a network")
	require.Equal(t, 404, f.hit(t, http.MethodGet, "/share/"+uuid.NewString()+"/x", browserUA, "").StatusCode)
	require.Equal(t, 404, f.hit(t, http.MethodGet, "/share/"+a+"/linkedin-add", browserUA, "").StatusCode,
		"the page offers add-to-profile for valid badges only, and this credential is not signed")

	badgePath, issPath := "/public/v3/badges/"+f.vars["{badge}"]+"/stats", "/public/v3/issuances/"+iss+"/stats"
	progPath, assertionPath := "/public/v3/programs/"+f.vars["{program}"]+"/stats", "/public/v3/assertions/"+a+"/stats"
	before := f.statsOf(t, f.keys["viewer"], badgePath)
	require.Equal(t, 0, num(t, before, "totals.views.human"), "nothing reaches the database before a flush")
	require.Empty(t, jget(t, before, "days"))

	f.flush(t)
	f.flush(t) // nothing left: adds nothing
	for _, path := range []string{badgePath, issPath, progPath, assertionPath} {
		s := f.statsOf(t, f.keys["viewer"], path)
		require.Equal(t, "2025-01-31", s["from"], "the 30 days ending today")
		require.Equal(t, "2025-03-01", s["to"])
		wantBots := 2
		if path == badgePath || path == progPath {
			wantBots = 3 // the other assertion's view without User-Agent
		}
		for _, prefix := range []string{"totals.", "days.0."} {
			require.Equal(t, 4, num(t, s, prefix+"views.human"), path)
			require.Equal(t, wantBots, num(t, s, prefix+"views.bots"), path)
			require.Equal(t, 4, num(t, s, prefix+"verifications.page.human"))
			require.Equal(t, 1, num(t, s, prefix+"verifications.api.human"))
			require.Equal(t, 1, num(t, s, prefix+"verifications.api.bots"), "Go-http-client is a program")
			require.Equal(t, 1, num(t, s, prefix+"pdfDownloads.human"))
			require.Equal(t, 1, num(t, s, prefix+"shares.linkedin-post.human"))
			require.Equal(t, 1, num(t, s, prefix+"shares.x.human"))
			require.Equal(t, 1, num(t, s, prefix+"shares.email.human"))
			require.Equal(t, 2, num(t, s, prefix+"shares.copy.human"))
			require.Equal(t, 1, num(t, s, prefix+"shares.facebook.bots"))
			require.Equal(t, 0, num(t, s, prefix+"shares.linkedin-add.human"))
		}
		require.Equal(t, "2025-03-01", jstr(t, s, "days.0.date"))
		require.Len(t, jget(t, s, "days"), 1)
	}

	// Prometheus: by kind and agent, as counted.
	rec := httpGet(t, f.metrics.Handler())
	require.Contains(t, rec, `badged_badge_events_total{agent="human",kind="view"} 4`)
	require.Contains(t, rec, `badged_badge_events_total{agent="bot",kind="view"} 3`)
	require.Contains(t, rec, `badged_badge_events_total{agent="human",kind="share_copy"} 2`)
	require.Contains(t, rec, `badged_stats_flushes_total{outcome="ok"} 1`)
}

// httpGet serves one GET of h and returns the body.
func httpGet(tb testing.TB, h http.Handler) string {
	tb.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(tb, http.StatusOK, w.Code)
	return w.Body.String()
}

// TestStats_OncePerVisitor: 50 clicks on one badge's X button from one browser count one share, whichever of two
// API processes (two handlers with their own recorders on one database) they reach and however the flushes fall;
// another browser at the same address counts, and a bot counts apart. No
// address or User-Agent is stored: the visits table holds 16-byte keyed hashes.
func TestStats_OncePerVisitor(t *testing.T) {
	f := newStatsFixture(t)
	_, a := f.issue(t, f.keys["owner"])
	second := stats.NewRecorder(f.d, stats.Options{Clock: func() time.Time { return fixedNow }})
	srv2 := f.server(t, second)
	const addr = "203.0.113.7"
	for i := range 50 {
		srv := f.srv
		if i%2 == 1 {
			srv = srv2
		}
		require.Equal(t, http.StatusFound, f.hitFrom(t, srv, addr, http.MethodGet, "/share/"+a+"/x", browserUA, "").StatusCode)
		if i%10 == 9 {
			f.flush(t)
			require.NoError(t, second.Flush(context.Background()))
		}
	}
	f.hitFrom(t, srv2, addr, http.MethodGet, "/share/"+a+"/x", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "")
	for range 3 {
		f.hitFrom(t, f.srv, addr, http.MethodGet, "/share/"+a+"/x", crawlerUA, "")
	}
	f.flush(t)
	require.NoError(t, second.Flush(context.Background()))
	s := f.statsOf(t, f.keys["viewer"], "/public/v3/assertions/"+a+"/stats")
	require.Equal(t, 2, num(t, s, "totals.shares.x.human"), "one browser once, the other browser once")
	require.Equal(t, 1, num(t, s, "totals.shares.x.bots"))

	var keys, visits int
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT count(*) FROM stats_visitor_keys").Scan(&keys))
	require.NoError(t, f.d.Pool.QueryRow(context.Background(),
		"SELECT count(*) FROM stats_visits WHERE octet_length(visitor) = 16 AND position($1::bytea in visitor) = 0", []byte(addr)).Scan(&visits))
	require.Equal(t, 1, keys, "both processes use the day's one key")
	require.Equal(t, 3, visits)
}

// TestStats_ParallelHitsSumExactly: concurrent page views of two assertions, flushed concurrently while they run,
// sum exactly: no event is lost or added between the map and the table.
func TestStats_ParallelHitsSumExactly(t *testing.T) {
	f := newStatsFixture(t)
	_, a := f.issue(t, f.keys["owner"])
	_, b := f.issue(t, f.keys["owner"])
	const workers, each = 8, 25
	done := make(chan struct{})
	flushed := make(chan error, 1)
	go func() { // flushes as fast as it can while the hits run
		for {
			select {
			case <-done:
				flushed <- nil
				return
			default:
				if err := f.rec.Flush(context.Background()); err != nil {
					flushed <- err
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id, ua := a, browserUA
				if (w+i)%2 == 1 {
					id = b
				}
				if i%5 == 0 {
					ua = crawlerUA
				}
				if res := f.hit(t, http.MethodGet, "/verify/"+id, ua, ""); res.StatusCode != 200 {
					t.Errorf("status %d", res.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	require.NoError(t, <-flushed)
	f.flush(t)
	s := f.statsOf(t, f.keys["viewer"], "/public/v3/badges/"+f.vars["{badge}"]+"/stats")
	require.Equal(t, workers*each*4/5, num(t, s, "totals.views.human"))
	require.Equal(t, workers*each/5, num(t, s, "totals.views.bots"))
	var perAssertion int
	require.NoError(t, f.d.Pool.QueryRow(context.Background(),
		"SELECT count(DISTINCT assertion_id) FROM assertion_stats_daily WHERE badge_id = $1", f.vars["{badge}"]).Scan(&perAssertion))
	require.Equal(t, 2, perAssertion)
}

// TestStats_Modes: a test-mode key sees its test assertions' counters only, a live key its live ones; another
// mode's issuance answers as an unknown one.
func TestStats_Modes(t *testing.T) {
	f := newStatsFixture(t)
	liveIss, live := f.issue(t, f.keys["owner"])
	testIss, test := f.issue(t, f.testKey)
	for range 2 {
		f.hit(t, http.MethodGet, "/verify/"+live, browserUA, "")
	}
	for range 5 {
		f.hit(t, http.MethodGet, "/verify/"+test, browserUA, "")
	}
	f.flush(t)
	badge := "/public/v3/badges/" + f.vars["{badge}"] + "/stats"
	require.Equal(t, 2, num(t, f.statsOf(t, f.keys["viewer"], badge), "totals.views.human"))
	require.Equal(t, 5, num(t, f.statsOf(t, f.testKey, badge), "totals.views.human"))
	require.Equal(t, 5, num(t, f.statsOf(t, f.testKey, "/public/v3/issuances/"+testIss+"/stats"), "totals.views.human"))
	require.Equal(t, 5, num(t, f.statsOf(t, f.testKey, "/public/v3/programs/"+f.vars["{program}"]+"/stats"), "totals.views.human"))
	require.Equal(t, 2, num(t, f.statsOf(t, f.keys["viewer"], "/public/v3/programs/"+f.vars["{program}"]+"/stats"), "totals.views.human"))
	require.Equal(t, 5, num(t, f.statsOf(t, f.testKey, "/public/v3/assertions/"+test+"/stats"), "totals.views.human"))
	requireError(t, f.do(t, http.MethodGet, "/public/v3/assertions/"+live+"/stats", f.testKey, ""), "/public/v3/assertions/"+live+"/stats", 404, "AST001")
	r := f.do(t, http.MethodGet, "/public/v3/issuances/"+liveIss+"/stats", f.testKey, "")
	requireError(t, r, "/public/v3/issuances/"+liveIss+"/stats", 404, "ISS001")
	r = f.do(t, http.MethodGet, "/public/v3/issuances/"+testIss+"/stats", f.keys["viewer"], "")
	requireError(t, r, "/public/v3/issuances/"+testIss+"/stats", 404, "ISS001")
}

// TestStats_RecordedOutcomes: wallet claims and bounced mails come from what the database records, on their day.
func TestStats_RecordedOutcomes(t *testing.T) {
	f := newStatsFixture(t)
	iss, a := f.issue(t, f.keys["owner"])
	ctx := context.Background()
	day := fixedNow.Add(-48 * time.Hour)
	_, err := f.d.Pool.Exec(ctx, `UPDATE assertions SET error_code = 'BOUNCED_EMAIL' WHERE id = $1`, a)
	require.NoError(t, err)
	_, err = f.d.Pool.Exec(ctx, `INSERT INTO notifications (assertion_id, message_id, channel, status, updated_at) VALUES ($1, 'm', 'EMAIL', 'FAILED', $2)`, a, day)
	require.NoError(t, err)
	offer := uuid.New()
	_, err = f.d.Pool.Exec(ctx, `INSERT INTO credential_offers (id, assertion_id, org_id, mode, expires_at) VALUES ($1, $2, $3, 'live', $4)`,
		offer, a, f.org.ID, fixedNow.Add(time.Hour))
	require.NoError(t, err)
	for i := range 2 {
		_, err = f.d.Pool.Exec(ctx, `INSERT INTO wallet_credentials (id, assertion_id, offer_id, org_id, token_hash, configuration_id, format,
			holder_did, credential, credential_sha256, notification_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, 'ldp_vc', 'did:key:z', '\x00', '\x00', $7, $8)`,
			uuid.New(), a, offer, f.org.ID, []byte{byte(i)}, fmt.Sprint("cfg", i), uuid.NewString(), fixedNow)
		require.NoError(t, err)
	}
	for _, path := range []string{"/public/v3/badges/" + f.vars["{badge}"] + "/stats", "/public/v3/issuances/" + iss + "/stats",
		"/public/v3/programs/" + f.vars["{program}"] + "/stats", "/public/v3/assertions/" + a + "/stats"} {
		s := f.statsOf(t, f.keys["viewer"], path)
		require.Equal(t, 2, num(t, s, "totals.walletClaims"))
		require.Equal(t, 1, num(t, s, "totals.mailsBounced"))
		require.Equal(t, "2025-02-27", jstr(t, s, "days.0.date"))
		require.Equal(t, 1, num(t, s, "days.0.mailsBounced"))
		require.Equal(t, "2025-03-01", jstr(t, s, "days.1.date"))
		require.Equal(t, 2, num(t, s, "days.1.walletClaims"))
		out := f.statsOf(t, f.keys["viewer"], path+"?from=2025-02-28&to=2025-02-28")
		require.Equal(t, 0, num(t, out, "totals.walletClaims"), "outside the range")
		require.Equal(t, 0, num(t, out, "totals.mailsBounced"))
	}
}

// TestStats_Refusals: bad dates name their field with the contract's codes, unknown ids are the not-found codes,
// and the routes are v3 only.
func TestStats_Refusals(t *testing.T) {
	f := newStatsFixture(t)
	iss, _ := f.issue(t, f.keys["owner"])
	badge := "/public/v3/badges/" + f.vars["{badge}"] + "/stats"
	for _, c := range []struct {
		query, code, field string
	}{
		{"from=2025-13-01", "COM002", "from"},
		{"to=yesterday", "COM002", "to"},
		{"from=2025-03-01T00:00:00Z", "COM002", "from"},
		{"from=2025-03-02&to=2025-03-01", "COM006", "from"},
		{"from=2024-02-28&to=2025-03-01", "COM006", "from"},
	} {
		for _, path := range []string{badge, "/public/v3/issuances/" + iss + "/stats"} {
			r := f.do(t, http.MethodGet, path+"?"+c.query, f.keys["viewer"], "")
			requireError(t, r, path, 400, c.code, c.field)
		}
	}
	s := f.statsOf(t, f.keys["viewer"], badge+"?from=2024-03-01&to=2025-03-01") // 366 days: the most
	require.Equal(t, "2024-03-01", s["from"])
	missing := uuid.NewString()
	requireError(t, f.do(t, http.MethodGet, "/public/v3/badges/"+missing+"/stats", f.keys["viewer"], ""), "/public/v3/badges/"+missing+"/stats", 404, "BDG001")
	requireError(t, f.do(t, http.MethodGet, "/public/v3/badges/"+f.vars["{otherBadge}"]+"/stats", f.keys["viewer"], ""),
		"/public/v3/badges/"+f.vars["{otherBadge}"]+"/stats", 404, "BDG001")
	requireError(t, f.do(t, http.MethodGet, "/public/v3/issuances/"+missing+"/stats", f.keys["viewer"], ""), "/public/v3/issuances/"+missing+"/stats", 404, "ISS001")
	requireError(t, f.do(t, http.MethodGet, "/public/v3/programs/"+missing+"/stats", f.keys["viewer"], ""), "/public/v3/programs/"+missing+"/stats", 404, "PRG001")
	requireError(t, f.do(t, http.MethodGet, "/public/v3/assertions/"+missing+"/stats", f.keys["viewer"], ""), "/public/v3/assertions/"+missing+"/stats", 404, "AST001")
	requireError(t, f.do(t, http.MethodGet, "/public/v3/badges/nope/stats", f.keys["viewer"], ""), "/public/v3/badges/nope/stats", 400, "COM002", "badgeId")
	r := f.do(t, http.MethodGet, "/public/v2/badges/"+f.vars["{badge}"]+"/stats", f.keys["viewer"], "")
	require.Equal(t, 404, r.Status, "v3 only: %s", r.Raw)
}
