package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/waitfor"
)

// TestAuthentication_RevokedEverywhereAtOnce: two API processes (each its own pool, key cache and revocation
// listener on one database) cache a key for a minute; once it is revoked, both refuse it within seconds, not after
// the cache's TTL: the revocation is announced on commit (migration 0036) and each cache forgets the key.
func TestAuthentication_RevokedEverywhereAtOnce(t *testing.T) {
	d := dbtest.New(t)
	key, row := mustKey(t, d, mustOrg(t, d, "Revoke Org"), apikey.RoleManager)
	const ttl = time.Minute
	var procs []http.Handler
	for range 2 {
		pool, err := db.Open(context.Background(), dbtest.URL(t, d))
		require.NoError(t, err)
		store, err := blob.NewLocal(t.TempDir())
		require.NoError(t, err)
		log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
		rev := &apikey.Revocations{}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); rev.Listen(ctx, pool.Pool, log) }()
		t.Cleanup(func() { cancel(); <-done; pool.Close() })
		procs = append(procs, api.NewHandler(api.Deps{DB: pool, Blob: store, PublicBaseURL: baseURL, KeyCacheTTL: ttl,
			KeyRevocations: rev, Log: log}))
	}
	status := func(h http.Handler) int {
		req := httptest.NewRequestWithContext(context.Background(), http.MethodGet, "/public/v3/organization", nil)
		req.Header.Set("X-API-KEY", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for _, h := range procs {
		require.Equal(t, http.StatusOK, status(h)) // read and cached for a minute
	}
	revoked := time.Now()
	_, err := d.RevokeAPIKey(context.Background(), row.ID)
	require.NoError(t, err)
	for i, h := range procs {
		waitfor.True(t, 10*time.Second, 20*time.Millisecond, "the revoked key refused by process "+string(rune('1'+i)),
			func() bool { return status(h) == http.StatusUnauthorized })
	}
	require.Less(t, time.Since(revoked), ttl/2, "the key was refused only as its cached row expired")
}
