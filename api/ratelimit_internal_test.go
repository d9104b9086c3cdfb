package api

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// fakeNow is a clock the test moves.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeNow) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeNow) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestKeyLimiter_RefillAndRetryAfter(t *testing.T) {
	clock := &fakeNow{t: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}
	l := newKeyLimiter(RateLimit{PerSecond: 2, Burst: 4}, clock.now)
	a, b := uuid.New(), uuid.New()
	for i := range 4 {
		ok, _ := l.allow(a)
		require.True(t, ok, "request %d of the burst", i)
	}
	ok, wait := l.allow(a)
	require.False(t, ok)
	require.Equal(t, 500*time.Millisecond, wait, "one token at 2/s")
	ok, wait2 := l.allow(a)
	require.False(t, ok)
	require.Equal(t, wait, wait2, "a refused request must not reserve a future token")

	ok, _ = l.allow(b)
	require.True(t, ok, "another key has its own bucket")

	clock.add(500 * time.Millisecond)
	ok, _ = l.allow(a)
	require.True(t, ok, "refilled one token")
	ok, _ = l.allow(a)
	require.False(t, ok)
}

func TestKeyLimiter_EvictsIdleBuckets(t *testing.T) {
	clock := &fakeNow{t: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}
	l := newKeyLimiter(RateLimit{PerSecond: 10, Burst: 10}, clock.now)
	require.Equal(t, minIdleEviction, l.idle, "a bucket refilling within a second is still kept a minute")
	for range 100 {
		l.allow(uuid.New())
	}
	require.Equal(t, 100, l.size())

	clock.add(30 * time.Second)
	active := uuid.New()
	l.allow(active)
	require.Equal(t, 101, l.size(), "nothing is idle yet")

	clock.add(31 * time.Second)
	l.allow(active)
	require.Equal(t, 1, l.size(), "only the bucket used within the idle period stays")
}

func TestKeyLimiter_ConcurrentUse(t *testing.T) {
	l := newKeyLimiter(RateLimit{PerSecond: 0.001, Burst: 50}, time.Now)
	key := uuid.New()
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 200 {
		wg.Go(func() {
			if ok, _ := l.allow(key); ok {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Equal(t, 50, allowed, "exactly the burst passes, however the requests interleave")
}

func TestStatusOf_TooManyRequests(t *testing.T) {
	require.Equal(t, 429, statusOf(codeTooMany))
	require.Nil(t, newKeyLimiter(RateLimit{}, time.Now), "the zero value disables the limiter")
	require.Nil(t, newKeyLimiter(RateLimit{PerSecond: -1, Burst: 5}, time.Now), "so does a negative rate")
	require.Equal(t, DefaultRateLimit.Burst, newKeyLimiter(RateLimit{PerSecond: 1}, time.Now).burst, "a zero burst takes the default")
}
