package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// loadKind is one kind of request of a steady load: path builds the path of one request (it may pick ids at
// random, so every call must be safe from many goroutines), weight is its share of the mix.
type loadKind struct {
	name   string
	weight int
	path   func() string
	auth   bool // sends the API key
}

// loadGen is an open-loop load generator: request i is due at start + i/rps whether or not earlier requests have
// answered, so a slow server meets more concurrent requests instead of fewer (a closed loop would wait and hide
// the slowness: coordinated omission). Latency is counted from the due time, so any lag of the generator itself
// is charged to the measurement rather than silently dropped.
type loadGen struct {
	baseURL     string
	key         string
	kinds       []loadKind
	rps         float64
	duration    time.Duration
	maxInFlight int // a request due while this many are in flight is dropped, not queued
}

// loadSample is the outcome of one scheduled request.
type loadSample struct {
	kind    int
	dropped bool          // never sent: maxInFlight requests were in flight when it was due
	status  int           // HTTP status; 0 with err set when the request failed below HTTP
	err     error         // transport or read error
	body    string        // start of the body of a non-2xx answer, for the report
	latency time.Duration // due time to the last byte of the body
}

func (r loadSample) failed() bool {
	return !r.dropped && (r.err != nil || r.status < 200 || r.status > 299)
}

// loadRun is every sample of a run, in schedule order, and the wall time from the first due time until the last
// answer.
type loadRun struct {
	samples []loadSample
	elapsed time.Duration
}

// run sends rps × duration requests and returns when every one has answered.
func (g *loadGen) run(ctx context.Context) loadRun {
	n := int(math.Round(g.rps * g.duration.Seconds()))
	interval := time.Duration(float64(time.Second) / g.rps)
	mix := weightedMix(g.kinds)
	// Its own pool of keep-alive connections, as large as the allowed concurrency: the default transport keeps 2
	// idle connections per host, and the rest would be re-dialled for every request, measuring TCP setup.
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		MaxIdleConns: g.maxInFlight, MaxIdleConnsPerHost: g.maxInFlight, IdleConnTimeout: time.Minute}}
	defer client.CloseIdleConnections()

	samples := make([]loadSample, n) // each index is written by one goroutine only
	slots := make(chan struct{}, g.maxInFlight)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due)) // a late generator does not sleep and catches up at once
		kind := mix[i%len(mix)]
		select {
		case slots <- struct{}{}:
		default:
			samples[i] = loadSample{kind: kind, dropped: true}
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			samples[i] = g.send(ctx, client, kind, due)
		})
	}
	wg.Wait()
	return loadRun{samples: samples, elapsed: time.Since(start)}
}

// send makes one request of kind and reads its whole body.
func (g *loadGen) send(ctx context.Context, client *http.Client, kind int, due time.Time) loadSample {
	out := loadSample{kind: kind}
	k := g.kinds[kind]
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.baseURL+k.path(), nil)
	if err != nil {
		out.err = err
		return out
	}
	if k.auth {
		req.Header.Set("X-API-KEY", g.key)
	}
	res, err := client.Do(req)
	if err != nil {
		out.err, out.latency = err, time.Since(due)
		return out
	}
	defer res.Body.Close()
	out.status = res.StatusCode
	if out.status < 200 || out.status > 299 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 300))
		out.body = string(b)
	}
	_, out.err = io.Copy(io.Discard, res.Body)
	out.latency = time.Since(due)
	return out
}

// weightedMix interleaves the kinds by weight (each kind spread evenly over the cycle rather than in runs), so
// every stretch of the run carries the whole mix and its exact proportions.
func weightedMix(kinds []loadKind) []int {
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	type slot struct {
		at   float64
		kind int
	}
	var slots []slot
	for i, k := range kinds {
		for j := range k.weight {
			slots = append(slots, slot{at: (float64(j) + 0.5) / float64(k.weight), kind: i})
		}
	}
	slices.SortStableFunc(slots, func(a, b slot) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	out := make([]int, total)
	for i, s := range slots {
		out[i] = s.kind
	}
	return out
}

// latencyStats are exact order statistics of a set of latencies.
type latencyStats struct {
	n             int
	p50, p99, max time.Duration
}

// statsOf sorts the latencies and takes nearest-rank percentiles: no histogram buckets, so no rounding.
func statsOf(lat []time.Duration) latencyStats {
	if len(lat) == 0 {
		return latencyStats{}
	}
	slices.Sort(lat)
	rank := func(p float64) time.Duration { return lat[max(0, int(math.Ceil(p*float64(len(lat))))-1)] }
	return latencyStats{n: len(lat), p50: rank(0.50), p99: rank(0.99), max: lat[len(lat)-1]}
}

// summary is a run's figures: overall and per kind (successful requests only), and what went wrong.
type loadSummary struct {
	sent, ok, dropped int
	overall           latencyStats
	perKind           []latencyStats
	failures          []loadSample
}

func summarize(run loadRun, kinds int) loadSummary {
	var s loadSummary
	all := make([]time.Duration, 0, len(run.samples))
	byKind := make([][]time.Duration, kinds)
	for _, r := range run.samples {
		switch {
		case r.dropped:
			s.dropped++
			continue
		case r.failed():
			s.failures = append(s.failures, r)
		default:
			s.ok++
			all = append(all, r.latency)
			byKind[r.kind] = append(byKind[r.kind], r.latency)
		}
		s.sent++
	}
	s.overall = statsOf(all)
	for _, l := range byKind {
		s.perKind = append(s.perKind, statsOf(l))
	}
	return s
}

// describeFailures counts the failures by kind, status and error code (the bodies differ by timestamp and path,
// so grouping by body would list every one) and shows the first body in full.
func describeFailures(kinds []loadKind, failures []loadSample) string {
	counts := map[string]int{}
	for _, f := range failures {
		var what string
		if f.err != nil {
			what = f.err.Error()
		} else {
			var b struct {
				Error struct{ Code string } `json:"error"`
			}
			_ = json.Unmarshal([]byte(f.body), &b)
			what = fmt.Sprintf("%d %s", f.status, b.Error.Code)
		}
		counts[kinds[f.kind].name+": "+what]++
	}
	var lines []string
	for k, n := range counts {
		lines = append(lines, fmt.Sprintf("%5d × %s", n, k))
	}
	slices.Sort(lines)
	if len(failures) > 0 {
		lines = append(lines, "first: "+failures[0].body)
	}
	return strings.Join(lines, "\n")
}

// envFloat reads a positive number from the environment, or def when the variable is unset.
func envFloat(name string, def float64) (float64, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s=%q: want a positive number", name, v)
	}
	return f, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
