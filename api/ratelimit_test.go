package api_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
)

// newLimitedEnv is the API with a rate limit of limit.
func newLimitedEnv(tb testing.TB, limit api.RateLimit) *env {
	tb.Helper()
	d := dbtest.New(tb)
	store, err := blob.NewLocal(tb.TempDir())
	require.NoError(tb, err)
	srv := httptest.NewServer(validateContract(tb, api.NewHandler(api.Deps{DB: d, Blob: store, PublicBaseURL: baseURL, RateLimit: limit,
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
		e := newLimitedEnv(t, api.DefaultRateLimit)
		key, _ := mustKey(t, e.d, mustOrg(t, e.d, "Default"), apikey.RoleViewer)
		for i := range api.DefaultRateLimit.Burst {
			r := e.do(t, http.MethodGet, "/public/v3/organization", key, "")
			require.Equal(t, http.StatusOK, r.Status, "request %d: %s", i, r.Raw)
		}
		// 100 requests take far less than the 2 s the bucket needs to refill at 50/s; a few more must be refused.
		refused := 0
		for range 10 {
			if e.do(t, http.MethodGet, "/public/v3/organization", key, "").Status == http.StatusTooManyRequests {
				refused++
			}
		}
		require.Positive(t, refused)
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
