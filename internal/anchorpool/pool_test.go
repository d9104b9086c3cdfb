package anchorpool

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// fakeClock is a Clock whose time moves only by Advance, which runs the timers that fall due on the caller's
// goroutine. lateStops makes Stop fail as it does for a timer that already fired and waits for the pool's lock.
type fakeClock struct {
	mu        sync.Mutex
	now       time.Time
	timers    []*fakeTimer
	lateStops bool
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
	fired   bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.lateStops || t.fired || t.stopped {
			return false
		}
		t.stopped = true
		return true
	}
}

// armed is how many timers are set and not yet fired or stopped.
func (c *fakeClock) armed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.fired && !t.stopped {
			n++
		}
	}
	return n
}

// Advance moves the time by d and runs every timer due by then, earliest first (a timer a callback arms runs too
// if it is due).
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var due *fakeTimer
		for _, t := range c.timers {
			if !t.fired && (!t.stopped || c.lateStops) && !t.at.After(c.now) && (due == nil || t.at.Before(due.at)) {
				due = t
			}
		}
		if due != nil {
			due.fired = true
		}
		c.mu.Unlock()
		if due == nil {
			return
		}
		due.f()
	}
}

// harness is a pool on a fake clock whose Assign records each batch.
type harness struct {
	pool    *Pool
	clock   *fakeClock
	batches chan []uuid.UUID
	err     error // what Assign returns
}

func newHarness(wait, minWait time.Duration) *harness {
	h := &harness{clock: newFakeClock(), batches: make(chan []uuid.UUID, 16)}
	h.pool = &Pool{Wait: wait, MinWait: minWait, Clock: h.clock, Assign: func(ids []uuid.UUID) error {
		h.batches <- slices.Clone(ids)
		return h.err
	}}
	return h
}

// sent is the next batch Assign received, sorted; a batch taken from the pool reaches Assign at once (on its own
// goroutine), so the bound only catches a broken pool.
func (h *harness) sent(t *testing.T) []uuid.UUID {
	t.Helper()
	select {
	case b := <-h.batches:
		sort.Slice(b, func(i, j int) bool { return b[i].String() < b[j].String() })
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no batch was sent")
		return nil
	}
}

// held asserts that n credentials still wait and nothing was sent. The batch is taken under the pool's lock, so
// Waiting tells at once whether it went, whichever goroutine Assign runs on.
func (h *harness) held(t *testing.T, n int) {
	t.Helper()
	require.Equal(t, n, h.pool.Waiting(), "credentials waiting")
	require.Empty(t, h.batches, "no batch sent")
}

func ids(n int) []uuid.UUID {
	out := make([]uuid.UUID, n)
	for i := range out {
		out[i] = uuid.New()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func received(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter heard nothing")
		return nil
	}
}

// The batch waits for the credentials still on their way and goes the moment the last of them arrives, long
// before Wait: one transaction for an issuance's chunks.
func TestPool_GoesWhenAllExpectedArrived(t *testing.T) {
	h := newHarness(2*time.Second, 0)
	c := ids(3)
	h.pool.Expect(c)
	first := h.pool.Join(c[:1], c[:1])
	h.held(t, 1)
	h.clock.Advance(time.Second)
	second := h.pool.Join(c[1:2], c[1:2])
	h.held(t, 2)
	third := h.pool.Join(c[2:], c[2:])
	require.Equal(t, c, h.sent(t))
	for _, done := range []<-chan error{first, second, third} {
		require.NoError(t, received(t, done))
	}
	require.Zero(t, h.clock.armed(), "the timer of a sent batch is stopped")
}

// A credential on its way holds the batch back for Wait at most, counted from the first arrival.
func TestPool_GoesWhenWaitElapsed(t *testing.T) {
	h := newHarness(2*time.Second, 0)
	c := ids(2)
	h.pool.Expect(c)
	done := h.pool.Join(c[:1], c[:1])
	h.clock.Advance(2*time.Second - time.Nanosecond)
	h.held(t, 1)
	h.clock.Advance(time.Nanosecond)
	require.Equal(t, c[:1], h.sent(t))
	require.NoError(t, received(t, done))

	// The straggler starts a batch of its own, with its own wait.
	late := h.pool.Join(c[1:], c[1:])
	require.Equal(t, c[1:], h.sent(t), "nothing else on its way: at once")
	require.NoError(t, received(t, late))
}

// A credential whose step failed (or that reached the anchor step already assigned) gives up its place: the batch
// that waited for it goes at once.
func TestPool_GoesWhenTheLastExpectedGivesUp(t *testing.T) {
	h := newHarness(2*time.Second, 0)
	c := ids(3)
	h.pool.Expect(c)
	done := h.pool.Join(c[:1], c[:1])
	h.pool.GiveUp(c[1:2])
	h.held(t, 1)
	h.pool.GiveUp(nil)
	h.pool.GiveUp(c[2:])
	require.Equal(t, c[:1], h.sent(t))
	require.NoError(t, received(t, done))
	h.pool.GiveUp(c) // nothing waits: nothing to send
	h.held(t, 0)
}

// MinWait holds a batch even when nothing else is on its way, to gather a trickle of small issuances.
func TestPool_MinWait(t *testing.T) {
	h := newHarness(2*time.Second, 500*time.Millisecond)
	c := ids(2)
	first := h.pool.Join(c[:1], c[:1])
	h.clock.Advance(300 * time.Millisecond)
	second := h.pool.Join(c[1:], c[1:])
	h.clock.Advance(200*time.Millisecond - time.Nanosecond)
	h.held(t, 2)
	h.clock.Advance(time.Nanosecond)
	require.Equal(t, c, h.sent(t))
	require.NoError(t, received(t, first))
	require.NoError(t, received(t, second))

	// Past MinWait, a credential still on its way holds the batch until Wait.
	more := ids(2)
	h.pool.Expect(more[1:])
	done := h.pool.Join(more[:1], more[:1])
	h.clock.Advance(time.Second)
	h.held(t, 1)
	h.clock.Advance(time.Second)
	require.Equal(t, more[:1], h.sent(t))
	require.NoError(t, received(t, done))
}

// MaxBatch credentials go at once, whatever is still on its way.
func TestPool_FullBatchGoesAtOnce(t *testing.T) {
	h := newHarness(2*time.Second, time.Second)
	h.pool.Expect(ids(1))
	c := ids(MaxBatch)
	done := h.pool.Join(c[:MaxBatch-1], nil)
	h.held(t, MaxBatch-1)
	h.pool.Join(c[MaxBatch-1:], nil)
	require.Len(t, h.sent(t), MaxBatch)
	require.NoError(t, received(t, done))
}

// A credential seen on its way longer than HeadedTTL ago (its workflow was cancelled, its anchor step ran on
// another worker) holds nothing back.
func TestPool_ForgetsStaleExpected(t *testing.T) {
	h := newHarness(2*time.Second, 0)
	h.pool.Expect(ids(1))
	h.clock.Advance(HeadedTTL - time.Nanosecond)
	c := ids(2)
	h.pool.Join(c[:1], nil)
	h.held(t, 1)
	h.clock.Advance(time.Nanosecond)
	h.pool.Join(c[1:], nil)
	require.Equal(t, c, h.sent(t))
}

// A timer armed for an earlier batch that fires after its batch went (its Stop came too late) sends nothing: the
// next batch keeps its own wait.
func TestPool_LateTimerOfEarlierBatch(t *testing.T) {
	h := newHarness(2*time.Second, 0)
	h.clock.lateStops = true
	c := ids(4)
	h.pool.Expect(c[1:2])
	h.pool.Join(c[:1], c[:1]) // timer at +2s
	h.pool.GiveUp(c[1:2])
	require.Equal(t, c[:1], h.sent(t))

	h.clock.Advance(time.Second)
	h.pool.Expect(c[3:])
	h.pool.Join(c[2:3], c[2:3]) // its own timer at +3s
	h.clock.Advance(time.Second)
	h.held(t, 1)
	h.clock.Advance(time.Second)
	require.Equal(t, c[2:3], h.sent(t))
}

// Every waiter of a batch hears its assignment's error; a waiter whose context ends leaves, and the batch still
// goes without it.
func TestPool_AssignErrorAndCancelledWaiter(t *testing.T) {
	h := newHarness(2*time.Second, 0)
	h.err = errors.New("database down")
	c := ids(3)
	h.pool.Expect(c)
	first := h.pool.Join(c[:1], c[:1])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, h.pool.Gather(ctx, c[1:2], c[1:2]), context.Canceled)
	h.held(t, 2)
	h.pool.GiveUp(c[2:])
	require.Equal(t, c[:2], h.sent(t), "the cancelled waiter's credentials are assigned too")
	require.ErrorIs(t, received(t, first), h.err)
}
