package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/waitfor"
)

// Shape of the steady-load benchmark. The defaults keep the whole run near a minute on 2 cores.
const (
	loadDefaultRPS     = 200
	loadDefaultSeconds = 30
	loadIssuances      = 4
	loadMaxInFlight    = 256 // at 200 req/s: over a second of backlog, far past any healthy latency
	loadPageSize       = 20
	// loadRecipientsPerSecond sizes the issuances from the window: this many recipients per second of load (over
	// all issuances) is about what the pipeline completes under load here, so the worker is busy for the whole
	// window without stretching the run far past it.
	loadRecipientsPerSecond = 80
	// loadSeedRecipients are issued before the load, so that public credentials exist from its first second.
	loadSeedRecipients = 5
)

// BenchmarkSteadyLoad measures the read API under a steady open-loop load while issuances run: after a small
// seed issuance (so public credentials exist), it starts loadIssuances issuances on one stack and at once sends
// BADGED_LOAD_RPS requests per second (default 200) for BADGED_LOAD_SECONDS seconds (default 30), a fixed mix
// of issuance status (v3 and v2), assertion lists (by issuance and page; by state), single assertions and public
// credentials. It reports the achieved rate, exact p50/p99/max latency (overall as metrics, per kind in the log),
// dropped requests and the recipients per second issued end to end meanwhile, and fails on any non-2xx answer (every
// request targets something that exists, and the stack runs without a rate limit) or if an issuance does not
// complete with every recipient RECEIVED. b.N is not used: one run is one measurement window.
//
//	go test -run '^$' -bench SteadyLoad -benchtime 1x -timeout 20m ./e2e/
//	BADGED_LOAD_RPS=400 BADGED_LOAD_SECONDS=20 go test -run '^$' -bench SteadyLoad -benchtime 1x ./e2e/
func BenchmarkSteadyLoad(b *testing.B) {
	rps, err := envFloat("BADGED_LOAD_RPS", loadDefaultRPS)
	require.NoError(b, err)
	seconds, err := envFloat("BADGED_LOAD_SECONDS", loadDefaultSeconds)
	require.NoError(b, err)
	perIssuance := max(100, int(seconds*loadRecipientsPerSecond)/loadIssuances)
	total := perIssuance * loadIssuances

	s := newStack(b)
	tn := s.mustTenant(b, int64(total+loadSeedRecipients))
	seed := s.mustIssue(b, "v3", tn.Key, tn.Badge, "load-seed", issuanceBody(b, tn.Program, emailRecipients("seed", loadSeedRecipients), ""))
	require.Equal(b, "COMPLETED", s.waitIssuance(b, "v3", tn.Key, seed, issueTimeout)["processingStatus"])

	// The load starts as soon as the issuances are accepted, so it meets every phase of their pipeline.
	posted := time.Now()
	issuances := s.startLoadIssuances(b, tn, perIssuance)
	targets := &loadTargets{issuances: issuances, assertions: s.assertionIDs(b, tn.Org.ID), pageCount: perIssuance / loadPageSize}
	require.Len(b, targets.assertions, total+loadSeedRecipients)
	stopRefresh := s.refreshCredentials(tn.Org.ID, targets)
	defer stopRefresh()
	targets.waitCredentials(b, time.Minute) // the seed's: at once

	kinds := targets.kinds()
	gen := &loadGen{baseURL: s.BaseURL, key: tn.Key, kinds: kinds, rps: rps,
		duration: time.Duration(seconds * float64(time.Second)), maxInFlight: loadMaxInFlight}
	received := func() int { return s.receivedCount(b, tn.Org.ID) }
	b.ResetTimer()
	before, poolBefore, start := received(), s.DB.Pool.Stat(), time.Now()
	warmup := start.Sub(posted)
	run := gen.run(context.Background())
	issuedDuringLoad, poolAfter := received()-before, s.DB.Pool.Stat()
	b.StopTimer()

	s.requireLoadIssuancesDone(b, tn, issuances, perIssuance)
	stopRefresh() // it kept watching for the last RECEIVED
	// The issuing rate is end to end, posting to the last RECEIVED: recipients reach RECEIVED only after their
	// batch is signed and anchored, so a count within the window would read 0 while the signing phase runs.
	issuing := time.Since(posted)
	if done := targets.allPublished.Load(); done != nil {
		issuing = done.Sub(posted)
	}
	covered := (min(issuing, warmup+run.elapsed) - warmup).Seconds() / issuing.Seconds()
	// testing keeps 10 lines of a benchmark's log: the figures below take 9.
	b.Logf("%d issuances of %d recipients: all RECEIVED %.1f s after posting (±0.5 s), %.0f%% of that time under load (load from %.1f s, %d RECEIVED in the window); %s",
		loadIssuances, perIssuance, issuing.Seconds(), 100*covered, warmup.Seconds(), issuedDuringLoad,
		describePoolWaits(poolBefore, poolAfter))
	b.Log("slowest answer of the requests due in each second (ms):", perSecondMax(run, rps))
	reportLoad(b, kinds, run, rps, float64(total)/issuing.Seconds())
}

// startLoadIssuances posts loadIssuances v3 issuances of n recipients each and returns their ids.
func (s *stack) startLoadIssuances(tb testing.TB, tn tenant, n int) []string {
	tb.Helper()
	ids := make([]string, loadIssuances)
	for i := range ids {
		body := issuanceBody(tb, tn.Program, emailRecipients(fmt.Sprintf("load%d", i), n), "")
		ids[i] = s.mustIssue(tb, "v3", tn.Key, tn.Badge, "load-"+uuid.NewString(), body)
	}
	return ids
}

// requireLoadIssuancesDone waits for every issuance to finish and checks that the load did not cost a recipient.
func (s *stack) requireLoadIssuancesDone(tb testing.TB, tn tenant, ids []string, n int) {
	tb.Helper()
	for _, id := range ids {
		iss := s.waitIssuance(tb, "v3", tn.Key, id, 10*time.Minute)
		require.Equal(tb, "COMPLETED", iss["processingStatus"], "issuance %s", id)
		require.Equal(tb, n, s.count(tb, "SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED'",
			uuid.MustParse(id)), "issuance %s: every recipient RECEIVED", id)
	}
}

// assertionIDs are the ids of every assertion of the organization; the API inserts them when it accepts an
// issuance, so they all exist (PROCESSING at first) for the whole run.
func (s *stack) assertionIDs(tb testing.TB, org uuid.UUID) []string {
	tb.Helper()
	rows, err := s.DB.Pool.Query(context.Background(), "SELECT id FROM assertions WHERE org_id = $1", org)
	require.NoError(tb, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id uuid.UUID
		require.NoError(tb, rows.Scan(&id))
		out = append(out, id.String())
	}
	require.NoError(tb, rows.Err())
	return out
}

func (s *stack) receivedCount(tb testing.TB, org uuid.UUID) int {
	tb.Helper()
	return s.count(tb, "SELECT count(*) FROM assertions WHERE org_id = $1 AND state = 'RECEIVED'", org)
}

// loadTargets are the ids the requests of the mix pick from at random, so reads spread over the data rather than
// hit one cached row.
type loadTargets struct {
	issuances  []string
	assertions []string
	pageCount  int                      // pages of loadPageSize assertions in one issuance
	published  atomic.Pointer[[]string] // assertions whose credential is served, growing as the issuances run
	// allPublished is when the refresher first saw every assertion published (to within its period).
	allPublished atomic.Pointer[time.Time]
}

// refreshCredentials keeps published up to date, every half second, until the returned stop is called (stop
// waits for the refresher to end and may be called again): /credentials/{id} answers 404 until the credential is
// published and the assertion RECEIVED, so only those ids are requested.
func (s *stack) refreshCredentials(org uuid.UUID, t *loadTargets) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.refreshLoop(ctx, org, t)
	}()
	return func() { cancel(); <-done }
}

func (s *stack) refreshLoop(ctx context.Context, org uuid.UUID, t *loadTargets) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		rows, err := s.DB.Pool.Query(ctx, `SELECT id FROM assertions
			WHERE org_id = $1 AND state = 'RECEIVED' AND credential_key IS NOT NULL`, org)
		if err == nil {
			var ids []string
			for rows.Next() {
				var id uuid.UUID
				if rows.Scan(&id) == nil {
					ids = append(ids, id.String())
				}
			}
			rows.Close()
			if len(ids) > 0 {
				t.published.Store(&ids)
			}
			if now := time.Now(); len(ids) == len(t.assertions) {
				t.allPublished.CompareAndSwap(nil, &now)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// waitCredentials waits until the refresher has listed the published credentials once.
func (t *loadTargets) waitCredentials(tb testing.TB, timeout time.Duration) {
	tb.Helper()
	waitfor.True(tb, timeout, 100*time.Millisecond, "a published credential", func() bool { return t.published.Load() != nil })
}

// kinds is the request mix: what a client polling its issuances and a verifier opening credentials would send.
func (t *loadTargets) kinds() []loadKind {
	pick := func(ids []string) string { return ids[rand.IntN(len(ids))] }
	return []loadKind{
		{name: "GET v3 issuance", weight: 4, auth: true, path: func() string {
			return "/public/v3/issuances/" + pick(t.issuances)
		}},
		{name: "GET v2 issuance", weight: 2, auth: true, path: func() string {
			return "/public/v2/issuances/" + pick(t.issuances)
		}},
		{name: "list by issuance, page", weight: 4, auth: true, path: func() string {
			return fmt.Sprintf("/public/v3/assertions?issuanceId=%s&size=%d&page=%d&sort=createdAt,asc",
				pick(t.issuances), loadPageSize, 1+rand.IntN(t.pageCount))
		}},
		{name: "list by stateCode", weight: 3, auth: true, path: func() string {
			state := []string{"PROCESSING", "RECEIVED"}[rand.IntN(2)]
			return fmt.Sprintf("/public/v3/assertions?stateCode=%s&size=%d&page=%d", state, loadPageSize, 1+rand.IntN(5))
		}},
		{name: "GET assertion", weight: 4, auth: true, path: func() string {
			return "/public/v3/assertions/" + pick(t.assertions)
		}},
		{name: "GET /credentials/{id}", weight: 3, path: func() string {
			return "/credentials/" + pick(*t.published.Load())
		}},
	}
}

// describePoolWaits tells how much the window's queries (the API's and the worker's, one pool) waited for a
// connection: with a small pool, that queue rather than Postgres is where latency under load goes.
func describePoolWaits(before, after *pgxpool.Stat) string {
	acquires := after.AcquireCount() - before.AcquireCount()
	waited := after.EmptyAcquireCount() - before.EmptyAcquireCount()
	wait := after.AcquireDuration() - before.AcquireDuration()
	if acquires == 0 {
		return "DB pool: no acquires during the window"
	}
	return fmt.Sprintf("DB pool (max %d conns) during the window: %d acquires, %.0f%% had to wait, mean acquire %.1f ms",
		after.MaxConns(), acquires, 100*float64(waited)/float64(acquires), ms(wait)/float64(acquires))
}

// perSecondMax is the slowest answer among the requests due in each second of the run: it tells a uniform tail
// from a stall of a few seconds.
func perSecondMax(run loadRun, rps float64) string {
	var worst []time.Duration
	for i, r := range run.samples {
		sec := int(float64(i) / rps)
		if sec == len(worst) {
			worst = append(worst, 0)
		}
		worst[sec] = max(worst[sec], r.latency)
	}
	var sb strings.Builder
	for _, w := range worst {
		fmt.Fprintf(&sb, " %.0f", ms(w))
	}
	return sb.String()
}

// reportLoad logs the per-kind figures, reports the overall ones as metrics, and fails on any failed request.
func reportLoad(b *testing.B, kinds []loadKind, run loadRun, rps, recipientsPerSec float64) {
	sum := summarize(run, len(kinds))
	var lines strings.Builder
	for i, k := range kinds {
		st := sum.perKind[i]
		fmt.Fprintf(&lines, "\n  %-24s n=%-5d p50 %6.1f ms  p99 %7.1f ms  max %7.1f ms", k.name, st.n, ms(st.p50), ms(st.p99), ms(st.max))
	}
	b.Logf("target %.0f req/s for %.1f s: %d sent, %d ok, %d failed, %d dropped (over %d in flight); p50 %.1f ms, p99 %.1f ms, max %.1f ms%s",
		rps, run.elapsed.Seconds(), sum.sent, sum.ok, len(sum.failures), sum.dropped, loadMaxInFlight,
		ms(sum.overall.p50), ms(sum.overall.p99), ms(sum.overall.max), lines.String())
	b.ReportMetric(0, "ns/op") // one fixed window: time per op says nothing
	b.ReportMetric(float64(sum.ok)/run.elapsed.Seconds(), "req/s")
	b.ReportMetric(ms(sum.overall.p50), "p50-ms")
	b.ReportMetric(ms(sum.overall.p99), "p99-ms")
	b.ReportMetric(ms(sum.overall.max), "max-ms")
	b.ReportMetric(float64(sum.dropped), "dropped")
	b.ReportMetric(recipientsPerSec, "recipients/s")
	if len(sum.failures) > 0 {
		b.Fatalf("%d failed requests:\n%s", len(sum.failures), describeFailures(kinds, sum.failures))
	}
}
