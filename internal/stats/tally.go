package stats

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/badged/badged/db"
)

// The kinds of a Tally: events about no assertion, counted per UTC day only (earner_events_daily, migration 0033).
const (
	EarnerSignIn         = "signin"          // an earner followed a sign-in link and got a session
	EarnerCollectionView = "collection_view" // an earner's collection was shown to them
	EarnerProfileView    = "profile_view"    // a public earner profile was shown
)

// TallyStore adds one flush of day counts; *db.DB is one.
type TallyStore interface {
	AddEarnerEvents(ctx context.Context, arg db.AddEarnerEventsParams) error
}

// Tally counts events that belong to no assertion (the earner's sign-ins and collection views) per kind and UTC
// day, in memory, and adds them to Postgres at most every DefaultInterval, from a goroutine that the first Add
// after the interval starts: the request never waits for the database, and no loop has to be run. Nothing about
// the person is kept: only the day and the kind. A nil *Tally counts nothing.
type Tally struct {
	store TallyStore
	log   *slog.Logger
	clock func() time.Time

	mu       sync.Mutex
	counts   map[[2]string]int64 // {day, kind}
	last     time.Time           // the last flush started
	flushing bool
}

// NewTally returns a tally adding into store (nil clock: time.Now; nil log: slog.Default()).
func NewTally(store TallyStore, clock func() time.Time, log *slog.Logger) *Tally {
	if clock == nil {
		clock = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Tally{store: store, log: log, clock: clock, counts: map[[2]string]int64{}, last: clock()}
}

// Add counts one event of kind.
func (t *Tally) Add(kind string) {
	if t == nil {
		return
	}
	now := t.clock()
	t.mu.Lock()
	t.counts[[2]string{now.UTC().Format(time.DateOnly), kind}]++
	start := !t.flushing && now.Sub(t.last) >= DefaultInterval && len(t.counts) < DefaultMaxKeys
	if start {
		t.flushing, t.last = true, now
	}
	t.mu.Unlock()
	if start {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
			defer cancel()
			if err := t.Flush(ctx); err != nil {
				t.log.Warn("earner event counts not flushed; kept for the next flush", "err", err)
			}
			t.mu.Lock()
			t.flushing = false
			t.mu.Unlock()
		}()
	}
}

// Flush adds what is counted to the store now (tests; shutdown). On failure the counts are kept for the next one.
func (t *Tally) Flush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	batch := t.counts
	t.counts = map[[2]string]int64{}
	t.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	var p db.AddEarnerEventsParams
	for k, n := range batch {
		day, _ := time.Parse(time.DateOnly, k[0])
		p.Days = append(p.Days, pgtype.Date{Time: day, Valid: true})
		p.Kinds = append(p.Kinds, k[1])
		p.Counts = append(p.Counts, n)
	}
	if err := t.store.AddEarnerEvents(ctx, p); err != nil {
		t.mu.Lock()
		for k, n := range batch {
			t.counts[k] += n
		}
		t.mu.Unlock()
		return err
	}
	return nil
}
