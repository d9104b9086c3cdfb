package api_test

import (
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
)

// BenchmarkIssuanceLogTile serves the tiles of a log of 10,000 entries over HTTP, full and partial hash tiles,
// entry bundles and the checkpoint in turn, and reports the latency percentiles (goal: p99 ≤ 10 ms), beside those of
// /healthz interleaved in the same run (the server's floor on this machine at this moment).
func BenchmarkIssuanceLogTile(b *testing.B) {
	e := apitest.New(b)
	for from := 0; from < 10000; from += 2000 {
		appendLog(b, e, e.Srv.URL, from, 2000)
	}
	base := e.Srv.URL + "/issuers/" + e.Org.ID.String() + "/log/"
	paths := []string{"tile/0/017", "tile/0/039.p/16", "tile/entries/021", "tile/1/000.p/39", "checkpoint"}
	get := func(u string) time.Duration {
		start := time.Now()
		res, err := http.Get(u)
		require.NoError(b, err)
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		require.NoError(b, err)
		require.Equal(b, http.StatusOK, res.StatusCode, u)
		return time.Since(start)
	}
	lat, floor := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		lat = append(lat, get(base+paths[i%len(paths)]))
		b.StopTimer()
		floor = append(floor, get(e.Srv.URL+"/healthz"))
		b.StartTimer()
	}
	b.StopTimer()
	pct := func(d []time.Duration, p float64) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, int(p*float64(len(d))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(lat, 0.50), "p50-ms")
	b.ReportMetric(pct(lat, 0.99), "p99-ms")
	b.ReportMetric(pct(floor, 0.99), "healthz-p99-ms")
	b.Logf("%d requests: tiles p50 %.2f ms, p99 %.2f ms; /healthz p50 %.2f ms, p99 %.2f ms", len(lat),
		pct(lat, 0.5), pct(lat, 0.99), pct(floor, 0.5), pct(floor, 0.99))
}
