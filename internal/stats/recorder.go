package stats

import (
	"cmp"
	"context"
	"crypto/sha256"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/metrics"
)

// Store adds one flush of counters, each once per visitor, and keeps the days' visitor keys (visitors.go); *db.DB
// is one.
type Store interface {
	AddUniqueStats(ctx context.Context, arg db.AddUniqueStatsParams) error
	visitorKeys
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

// key is one event as it may count: the assertion (with its roll-up ids), the kind, the UTC day, whether a bot
// caused it, and who caused it (Client: the SHA-256 of client address and User-Agent, truncated; never stored:
// the flush turns it into the day's keyed visitor hash).
type key struct {
	Subject
	Kind   Kind
	Day    string // YYYY-MM-DD, UTC
	Bot    bool
	Client [16]byte
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
	counts map[key]int64 // an event held is 1: the same visitor again adds nothing

	flushMu sync.Mutex        // one flush at a time: it alone touches keys and forgot
	keys    map[string][]byte // the visitor keys of the days flushed lately (visitors.go)
	forgot  string            // the last day whose older visitors were forgotten
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
		counts: map[key]int64{}, keys: map[string][]byte{}}
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

// Record counts one event of kind about s, caused by client (web.ClientAddr) with userAgent, once per visitor,
// assertion, kind and UTC day: the same visitor again that day adds nothing, here or in any other process (the
// flush asks Postgres, AddUniqueStats). It takes a hash, a mutex and a map update (about a microsecond): nothing
// on the request path waits for the database.
func (r *Recorder) Record(s Subject, kind Kind, client, userAgent string) {
	if r == nil {
		return
	}
	bot := IsBot(userAgent)
	sum := sha256.Sum256([]byte(client + "\x00" + userAgent))
	k := key{Subject: s, Kind: kind, Day: r.clock().UTC().Format(time.DateOnly), Bot: bot, Client: [16]byte(sum[:16])}
	r.mu.Lock()
	_, held := r.counts[k]
	dropped := !held && len(r.counts) >= r.maxKeys
	if !dropped {
		r.counts[k] = 1
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

// Flush adds the events recorded so far to the store in one statement, each only if its visitor was not counted
// yet that day (AddUniqueStats). On failure they are merged back, to be added by the next flush. A flush whose
// commit's answer is lost is harmless now: the visits it recorded make its retry add nothing.
func (r *Recorder) Flush(ctx context.Context) error {
	if r == nil {
		return nil
	}
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	batch := r.counts
	r.counts = make(map[key]int64, len(batch))
	r.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	p, err := r.params(ctx, batch)
	if err == nil {
		err = r.store.AddUniqueStats(ctx, p)
	}
	r.metrics.StatsFlushed(err == nil)
	if err == nil {
		r.forgetOld(ctx)
	}
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

// params turns a batch into the statement's arrays, each event's client made the day's visitor hash, sorted by
// the tables' keys so that two processes adding the same rows lock them in one order.
func (r *Recorder) params(ctx context.Context, batch map[key]int64) (db.AddUniqueStatsParams, error) {
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
		if c := cmp.Compare(boolInt(a.Bot), boolInt(b.Bot)); c != 0 {
			return c
		}
		return slices.Compare(a.Client[:], b.Client[:])
	})
	var p db.AddUniqueStatsParams
	for _, k := range keys {
		visitor, err := r.visitor(ctx, k.Day, k.Client)
		if err != nil {
			return p, err
		}
		p.AssertionIds = append(p.AssertionIds, k.Assertion)
		p.Kinds = append(p.Kinds, string(k.Kind))
		p.Days = append(p.Days, k.Day)
		p.Bots = append(p.Bots, k.Bot)
		p.Visitors = append(p.Visitors, visitor)
		p.OrgIds = append(p.OrgIds, k.Org)
		p.Modes = append(p.Modes, k.Mode)
		p.BadgeIds = append(p.BadgeIds, k.Badge)
		p.ProgramIds = append(p.ProgramIds, k.Program)
		p.IssuanceIds = append(p.IssuanceIds, k.Issuance)
	}
	return p, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
