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
	"github.com/badged/badged/internal/blob"
)

// readParallelism is the number of goroutines per GOMAXPROCS of the parallel read benchmarks: enough requests in
// flight that the pool's connections, not the goroutines, bound the rate.
const readParallelism = 8

// BenchmarkGetIssuanceParallel measures GET /public/v3/issuances/{id} through api.NewHandler on the real database,
// in parallel, rate limit off, first with the API key read on every request (the old path, API_KEY_CACHE_TTL=0),
// then with the key cache of cmd/badged's default TTL; the second reports its rate over the first:
//
//	go test -run '^$' -bench GetIssuanceParallel -benchtime 10s ./api/
func BenchmarkGetIssuanceParallel(b *testing.B) {
	f := newIssFixture(b)
	id := jstr(b, f.mustIssue(b, "v3", "{badge}", "manager", "bench-read", manyRecipients(f.vars["{program}"], 3)), "id")
	store, err := blob.NewLocal(b.TempDir())
	require.NoError(b, err)
	var base float64 // req/s of key_per_request; its last run (the framework's largest b.N) is the measurement
	for _, c := range []struct {
		name string
		ttl  time.Duration
	}{{"key_per_request", 0}, {"key_cached", 5 * time.Second}} {
		b.Run(c.name, func(b *testing.B) {
			handler := api.NewHandler(api.Deps{DB: f.d, Blob: store, PublicBaseURL: baseURL, KeyCacheTTL: c.ttl,
				Log: slog.New(slog.NewTextHandler(b.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})
			rate := benchParallelGet(b, handler, "/public/v3/issuances/"+id, f.keys["viewer"])
			switch {
			case c.ttl == 0:
				base = rate
			case base > 0:
				b.ReportMetric(rate/base, "x-vs-key_per_request")
			default:
				b.Log("no ratio: key_per_request did not run in this invocation")
			}
		})
	}
}

// benchParallelGet serves GET target with key from readParallelism goroutines per CPU and reports the rate.
func benchParallelGet(b *testing.B, handler http.Handler, target, key string) float64 {
	b.Helper()
	serve := func() int {
		req := httptest.NewRequestWithContext(context.Background(), http.MethodGet, target, nil)
		req.Header.Set("X-API-KEY", key)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		return rec.Code
	}
	require.Equal(b, http.StatusOK, serve())
	b.SetParallelism(readParallelism)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if code := serve(); code != http.StatusOK {
				b.Errorf("GET %s: %d", target, code)
				return
			}
		}
	})
	rate := float64(b.N) / time.Since(start).Seconds()
	b.ReportMetric(rate, "req/s")
	return rate
}
