package stats

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/metrics"
)

// Store adds one flush of counters; *db.DB is one.
type Store interface {
	AddAssertionStats(ctx context.Context, arg db.AddAssertionStatsParams) error
}

// Defaults of a Recorder.
const (
	DefaultInterval = 5 * time.Second
	// DefaultMaxKeys bounds the counters held between flushes (about 150 bytes each): while Postgres is down,
	// events for keys beyond it are dropped, counted in badged_stats_dropped_total, rather than growing memory.
	DefaultMaxKeys = 200_000
	// flushTimeout bounds one flush, and the last one at shutdown.
	flushTimeout = 10 * time.Second
)

// key is one counter: the assertion (with its roll-up ids), the kind, the UTC day and whether a bot caused it.
type key struct {
	Subject
	Kind Kind
	Day  string // YYYY-MM-DD, UTC
	Bot  bool
}

// Recorder holds the counters of this process between flushes. A nil *Recorder records nothing, so handlers
// call it unconditionally.
type Recorder struct {
	store    Store
	log      *slog.Logger
	metrics  *metrics.Metrics
	clock    func() time.Time
	interval time.Duration
	maxKeys  int

	mu     sync.Mutex
	counts map[key]int64
}

// Options configure a Recorder; zero fields take the defaults.
type Options struct {
	Interval time.Duration    // between flushes (STATS_FLUSH_INTERVAL)
	MaxKeys  int              // counters held at most between flushes
	Clock    func() time.Time // decides the day of an event; nil: time.Now
	Log      *slog.Logger
	Metrics  *metrics.Metrics // badged_badge_events_total and the flush counters; nil: none
}

// NewRecorder returns a recorder that flushes into store once Run runs.
func NewRecorder(store Store, o Options) *Recorder {
	r := &Recorder{store: store, log: o.Log, metrics: o.Metrics, clock: o.Clock, interval: o.Interval, maxKeys: o.MaxKeys,
		counts: map[key]int64{}}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.clock == nil {
		r.clock = time.Now
	}
	if r.interval <= 0 {
		r.interval = DefaultInterval
	}
	if r.maxKeys <= 0 {
		r.maxKeys = DefaultMaxKeys
	}
	return r
}

// Record counts one event of kind about s, caused by a client with userAgent. It takes a mutex and a map
// update (well under a microsecond): nothing on the request path waits for the database.
func (r *Recorder) Record(s Subject, kind Kind, userAgent string) {
	if r == nil {
		return
	}
	bot := IsBot(userAgent)
	k := key{Subject: s, Kind: kind, Day: r.clock().UTC().Format(time.DateOnly), Bot: bot}
	r.mu.Lock()
	_, held := r.counts[k]
	dropped := !held && len(r.counts) >= r.maxKeys
	if !dropped {
		r.counts[k]++
	}
	r.mu.Unlock()
	r.metrics.BadgeEvent(string(kind), bot)
	if dropped {
		r.metrics.StatsDropped(1)
	}
}

// Run flushes every interval until ctx ends, then flushes once more (with a fresh deadline), so a graceful
// shutdown loses nothing that was recorded before it. Call it after the HTTP server stopped taking requests
// for the last flush to hold every event.
func (r *Recorder) Run(ctx context.Context) {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
			if err := r.Flush(fctx); err != nil {
				r.log.Error("stats: last flush failed; these counts are lost", "err", err)
			}
			cancel()
			return
		case <-t.C:
			fctx, cancel := context.WithTimeout(ctx, flushTimeout)
			if err := r.Flush(fctx); err != nil {
				r.log.Warn("stats: flush failed; the counts are kept for the next one", "err", err)
			}
			cancel()
		}
	}
}

// Flush adds the counters recorded so far to the store in one statement. On failure they are merged back, to
// be added by the next flush. The add is not idempotent: a commit whose answer is lost (the connection drops
// after COMMIT) is added again by the next flush; the README says so.
func (r *Recorder) Flush(ctx context.Context) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	batch := r.counts
	r.counts = make(map[key]int64, len(batch))
	r.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := r.store.AddAssertionStats(ctx, params(batch))
	r.metrics.StatsFlushed(err == nil)
	if err != nil {
		r.mu.Lock()
		dropped := 0
		for k, n := range batch {
			if _, held := r.counts[k]; held || len(r.counts) < r.maxKeys {
				r.counts[k] += n
			} else {
				dropped++
			}
		}
		r.mu.Unlock()
		r.metrics.StatsDropped(dropped)
		return err
	}
	return nil
}

// params turns a batch into the statement's arrays, sorted by the table's primary key so that two processes
// adding the same rows lock them in one order.
func params(batch map[key]int64) db.AddAssertionStatsParams {
	keys := make([]key, 0, len(batch))
	for k := range batch {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := slices.Compare(a.Assertion[:], b.Assertion[:]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Day, b.Day); c != 0 {
			return c
		}
		return cmp.Compare(boolInt(a.Bot), boolInt(b.Bot))
	})
	var p db.AddAssertionStatsParams
	for _, k := range keys {
		p.AssertionIds = append(p.AssertionIds, k.Assertion)
		p.Kinds = append(p.Kinds, string(k.Kind))
		p.Days = append(p.Days, k.Day)
		p.Bots = append(p.Bots, k.Bot)
		p.Ns = append(p.Ns, batch[k])
		p.OrgIds = append(p.OrgIds, k.Org)
		p.Modes = append(p.Modes, k.Mode)
		p.BadgeIds = append(p.BadgeIds, k.Badge)
		p.ProgramIds = append(p.ProgramIds, k.Program)
		p.IssuanceIds = append(p.IssuanceIds, k.Issuance)
	}
	return p
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
