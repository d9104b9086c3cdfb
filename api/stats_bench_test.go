package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/internal/stats"
)

// statsBenchClients and statsBenchSamples: each client asks for the page statsBenchSamples times with counting off
// and as many with it on, alternating, so both sides see the same machine noise.
const (
	statsBenchClients = 4
	statsBenchSamples = 500
)

// BenchmarkBadgePage_Counting is the badge page's latency with the event counter on (recorder flushing every
// second into Postgres, as in production but more often) beside the same page served without it, in one run: the
// two handlers share the database, the assertion and the process. The page is an unsigned credential's (its check
// ends at the signature), so the page is cheaper than a real one and the counter's share of it larger.
func BenchmarkBadgePage_Counting(b *testing.B) {
	f := newStatsFixture(b)
	_, a := f.issue(b, f.keys["owner"])
	rec := stats.NewRecorder(f.d, stats.Options{Interval: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	running := make(chan struct{})
	go func() { rec.Run(ctx); close(running) }()
	serve := func(rec *stats.Recorder) string {
		return startServer(b, api.NewHandler(api.Deps{DB: f.d, Blob: f.store, PublicBaseURL: baseURL, Stats: rec, Issuer: f.issuer,
			Log: slog.New(slog.NewTextHandler(b.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})).URL
	}
	onURL, offURL := serve(rec)+"/verify/"+a, serve(nil)+"/verify/"+a
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: statsBenchClients * 2}}
	get := func(url string) {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
		req.Header.Set("User-Agent", browserUA)
		res, err := client.Do(req)
		if err != nil {
			b.Errorf("GET %s: %v", url, err)
			return
		}
		if res.StatusCode != http.StatusOK {
			b.Errorf("GET %s: %s", url, res.Status)
		}
		_ = res.Body.Close()
	}
	get(onURL) // warm both
	get(offURL)

	on, off := &latencies{name: "page_counting_on"}, &latencies{name: "page_counting_off"}
	for b.Loop() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range statsBenchClients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				myOn, myOff := &latencies{}, &latencies{}
				for range statsBenchSamples {
					myOff.time(func() { get(offURL) })
					myOn.time(func() { get(onURL) })
				}
				mu.Lock()
				on.d, off.d = append(on.d, myOn.d...), append(off.d, myOff.d...)
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	cancel()
	<-running
	var counted int64
	require.NoError(b, f.d.Pool.QueryRow(context.Background(), "SELECT coalesce(sum(n), 0) FROM assertion_stats_daily WHERE assertion_id = $1", a).Scan(&counted))
	require.Equal(b, int64(len(on.d)+1), counted, "every counted view reached the table")
	off.report(b)
	on.report(b)
	reportRatio(b, on, off) // on p99 / off p99: above 1 is what counting costs at the tail
}
