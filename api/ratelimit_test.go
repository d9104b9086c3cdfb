package api_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
)

// newLimitedEnv is the API with a rate limit of limit.
func newLimitedEnv(tb testing.TB, limit api.RateLimit, rateClock ...func() time.Time) *env {
	tb.Helper()
	var clock func() time.Time
	if len(rateClock) > 0 {
		clock = rateClock[0]
	}
	d := dbtest.New(tb)
	store, err := blob.NewLocal(tb.TempDir())
	require.NoError(tb, err)
	srv := httptest.NewServer(validateContract(tb, api.NewHandler(api.Deps{DB: d, Blob: store, PublicBaseURL: baseURL, RateLimit: limit, RateClock: clock,
		Log: slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})))
	tb.Cleanup(srv.Close)
	return &env{d: d, srv: srv}
}

func TestRateLimit_PerKey(t *testing.T) {
	// One token per 1000 s: the burst is all a key gets during the test, and Retry-After is far from 1.
	e := newLimitedEnv(t, api.RateLimit{PerSecond: 0.001, Burst: 3})
	org := mustOrg(t, e.d, "Limited")
	key, _ := mustKey(t, e.d, org, apikey.RoleViewer)
	sameOrgKey, _ := mustKey(t, e.d, org, apikey.RoleViewer)
	otherKey, _ := mustKey(t, e.d, mustOrg(t, e.d, "Other"), apikey.RoleViewer)

	for i := range 3 {
		// The bucket is per key, not per version: v2 and v3 draw from the same one.
		v := testVersions[i%2]
		r := e.do(t, http.MethodGet, "/public/"+v+"/organization", key, "")
		require.Equal(t, http.StatusOK, r.Status, "request %d: %s", i, r.Raw)
		require.Empty(t, r.Header.Get("Retry-After"))
	}
	for _, v := range testVersions {
		path := "/public/" + v + "/programs"
		r := e.do(t, http.MethodGet, path, key, "")
		requireError(t, r, path, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
		secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
		require.NoError(t, err, "Retry-After %q is not delay-seconds", r.Header.Get("Retry-After"))
		require.InDelta(t, 1000, secs, 5, "one token takes 1000 s to refill")
		require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"), "the 429 goes through the usual middleware")
	}

	// Other keys, of the same and of another organization, have their own buckets.
	for _, k := range []string{sameOrgKey, otherKey} {
		r := e.do(t, http.MethodGet, "/public/v3/organization", k, "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	}

	// Failed authentications are answered 401 before the limiter: they spend no key's tokens and are not 429.
	for range 5 {
		r := e.do(t, http.MethodGet, "/public/v3/organization", "bdg_live_garbage", "")
		require.Equal(t, http.StatusUnauthorized, r.Status, "%s", r.Raw)
	}
	// Public routes are not limited per key.
	r := e.do(t, http.MethodGet, "/healthz", key, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
}

func TestRateLimit_DefaultAndDisabled(t *testing.T) {
	t.Run("default allows its burst, then 429", func(t *testing.T) {
		// The limiter's clock stands still, so the bucket refills by nothing however slow the machine is.
		frozen := time.Now()
		e := newLimitedEnv(t, api.DefaultRateLimit, func() time.Time { return frozen })
		key, _ := mustKey(t, e.d, mustOrg(t, e.d, "Default"), apikey.RoleViewer)
		for i := range api.DefaultRateLimit.Burst {
			r := e.do(t, http.MethodGet, "/public/v3/organization", key, "")
			require.Equal(t, http.StatusOK, r.Status, "request %d: %s", i, r.Raw)
		}
		for i := range 10 {
			r := e.do(t, http.MethodGet, "/public/v3/organization", key, "")
			require.Equal(t, http.StatusTooManyRequests, r.Status, "request %d past the burst: %s", i, r.Raw)
		}
	})
	t.Run("zero value turns it off", func(t *testing.T) {
		e := newLimitedEnv(t, api.RateLimit{})
		key, _ := mustKey(t, e.d, mustOrg(t, e.d, "Unlimited"), apikey.RoleViewer)
		for i := range 150 {
			r := e.do(t, http.MethodGet, "/public/v3/organization", key, "")
			require.Equal(t, http.StatusOK, r.Status, "request %d: %s", i, r.Raw)
		}
	})
}

// TestRateLimit_Headers: every answer behind a key says the bucket's size and what is left of it; the 429 says 0
// and when to come back.
func TestRateLimit_Headers(t *testing.T) {
	frozen := time.Now() // the bucket refills by nothing while the test runs
	e := newLimitedEnv(t, api.RateLimit{PerSecond: 1, Burst: 3}, func() time.Time { return frozen })
	key, _ := mustKey(t, e.d, mustOrg(t, e.d, "Headers"), apikey.RoleViewer)
	for want := 2; want >= 0; want-- {
		r := e.do(t, http.MethodGet, "/public/v3/organization", key, "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		require.Equal(t, "3", r.Header.Get("RateLimit-Limit"))
		require.Equal(t, strconv.Itoa(want), r.Header.Get("RateLimit-Remaining"))
	}
	r := e.do(t, http.MethodGet, "/public/v3/programs", key, "")
	requireError(t, r, "/public/v3/programs", http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
	require.Equal(t, "3", r.Header.Get("RateLimit-Limit"))
	require.Equal(t, "0", r.Header.Get("RateLimit-Remaining"))
	require.Equal(t, "1", r.Header.Get("Retry-After"))
}
