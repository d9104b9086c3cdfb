package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/metrics"
)

// TestMetrics_RoutePatternNotRawPath checks that a request is counted under its route pattern and API version,
// and that the id of the raw path never reaches /metrics.
func TestMetrics_RoutePatternNotRawPath(t *testing.T) {
	d := dbtest.New(t)
	m := metrics.New()
	srv := httptest.NewServer(validateContract(t, api.NewHandler(api.Deps{DB: d, PublicBaseURL: baseURL, Metrics: m,
		Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})))
	t.Cleanup(srv.Close)
	org := mustOrg(t, d, "Metrics Org")
	key, _ := mustKey(t, d, org, apikey.RoleViewer)

	id := uuid.New().String()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/public/v3/badges/"+id, nil)
	require.NoError(t, err)
	req.Header.Set("X-API-KEY", key)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusNotFound, res.StatusCode)

	res, err = http.Get(srv.URL + "/healthz")
	require.NoError(t, err)
	res.Body.Close()

	text := scrape(t, m)
	require.Contains(t, text, `badged_http_requests_total{method="GET",route="/public/v3/badges/{badgeId}",status="404",version="v3"} 1`)
	require.Contains(t, text, `badged_http_requests_total{method="GET",route="/healthz",status="200",version="none"} 1`)
	require.Contains(t, text, `badged_http_request_duration_seconds_count{method="GET",route="/public/v3/badges/{badgeId}",status="404",version="v3"} 1`)
	require.NotContains(t, text, id)
}

// TestMetrics_IssuanceStartedOnlyOnce checks that an issuance is counted when its row is created and not again when
// the same request is replayed with its Idempotency-Key.
func TestMetrics_IssuanceStartedOnlyOnce(t *testing.T) {
	f := newIssFixture(t)
	m := metrics.New()
	store, err := blob.NewLocal(t.TempDir())
	require.NoError(t, err)
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(t, err)
	srv := httptest.NewServer(validateContract(t, api.NewHandler(api.Deps{DB: f.d, Blob: store, Location: seoul, PublicBaseURL: baseURL,
		Clock: f.clock.Now, Issuances: f.starter, Metrics: m,
		Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})))
	t.Cleanup(srv.Close)
	f.env = &env{d: f.d, srv: srv}

	body := issuanceBody(f.vars["{program}"], rcpt("Kim", "kim@example.com"))
	first := f.mustIssue(t, "v3", "{badge}", "manager", "metrics-1", body)
	replay := f.mustIssue(t, "v3", "{badge}", "manager", "metrics-1", body)
	require.Equal(t, first["id"], replay["id"])

	text := scrape(t, m)
	require.Contains(t, text, `badged_issuances_started_total{mode="live",version="v3"} 1`+"\n")
	require.Contains(t, text, `badged_http_requests_total{method="POST",route="/public/v3/badges/{badgeId}/issuances",status="200",version="v3"} 2`)
}

// TestMetrics_NotOnTheAPIPort: /metrics is served on METRICS_ADDR (cmd/badged), never by the API handler, which
// anyone who reaches the API can call: there it is an unknown route like any other.
func TestMetrics_NotOnTheAPIPort(t *testing.T) {
	d := dbtest.New(t)
	m := metrics.New()
	srv := httptest.NewServer(api.NewHandler(api.Deps{DB: d, PublicBaseURL: baseURL, Metrics: m,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusNotFound, res.StatusCode, "%s", body)
	require.NotContains(t, string(body), "badged_http_requests_total")
	require.Contains(t, scrape(t, m), `route="unmatched",status="404"`, "counted as the unknown route it is")
}

// scrape is what Prometheus reads from the metrics listener (cmd/badged serves m.Handler() on METRICS_ADDR).
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return rec.Body.String()
}
