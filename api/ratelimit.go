package api

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"
)

// DefaultRateLimit is what cmd/badged configures unless RATE_LIMIT_RPS / RATE_LIMIT_BURST say otherwise: a key may
// burst 100 requests and then sustain 50 per second.
var DefaultRateLimit = RateLimit{PerSecond: 50, Burst: 100}

// minIdleEviction is the shortest time an unused bucket is kept; see newKeyLimiter.
const minIdleEviction = time.Minute

// RateLimit is the per-API-key token bucket: PerSecond requests per second sustained, Burst at once. The zero value
// (PerSecond <= 0) turns the limit off, so handlers built in tests and benchmarks are not throttled; a zero Burst
// takes DefaultRateLimit.Burst.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// keyLimiter holds one token bucket per API key id. Buckets unused for longer than idle are dropped: by then they
// have refilled completely, so a fresh bucket behaves exactly like the dropped one and memory stays bounded by the
// keys active recently rather than every key ever seen.
type keyLimiter struct {
	mu        sync.Mutex
	limit     rate.Limit
	burst     int
	idle      time.Duration
	now       func() time.Time
	buckets   map[uuid.UUID]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// newKeyLimiter returns the limiter of cfg, or nil when cfg turns the limit off.
func newKeyLimiter(cfg RateLimit, now func() time.Time) *keyLimiter {
	if cfg.PerSecond <= 0 {
		return nil
	}
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultRateLimit.Burst
	}
	// An empty bucket is full again after burst/rate; keeping it longer would change nothing.
	idle := time.Duration(float64(cfg.Burst) / cfg.PerSecond * float64(time.Second))
	idle = max(idle, minIdleEviction)
	return &keyLimiter{limit: rate.Limit(cfg.PerSecond), burst: cfg.Burst, idle: idle, now: now,
		buckets: map[uuid.UUID]*bucket{}, lastSweep: now()}
}

// allow takes one token of key's bucket. When the bucket is empty it returns false and how long until a token is
// available.
func (l *keyLimiter) allow(key uuid.UUID) (bool, time.Duration) {
	ok, wait, _ := l.take(key)
	return ok, wait
}

// take is allow that also tells how many whole tokens are left after this request.
func (l *keyLimiter) take(key uuid.UUID) (ok bool, wait time.Duration, remaining int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	if b.lim.AllowN(now, 1) {
		return true, 0, max(0, int(math.Floor(b.lim.TokensAt(now))))
	}
	r := b.lim.ReserveN(now, 1)
	wait = r.DelayFrom(now)
	r.CancelAt(now) // the request is refused, so it must not consume the future token
	return false, wait, 0
}

// sweep drops idle buckets, at most once per idle period so a request pays for it rarely. Callers hold l.mu.
func (l *keyLimiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < l.idle {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if now.Sub(b.seen) >= l.idle {
			delete(l.buckets, k)
		}
	}
}

// size is the number of buckets held, for tests of the eviction.
func (l *keyLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// rateLimit answers 429 TOO_MANY_REQUESTS with Retry-After when the caller's key has used up its bucket. It runs
// after authenticate, so the bucket is the key id's: a key cannot be starved by requests that fail to authenticate
// with it, and one organization's keys do not share a budget with another's. Every answer it lets through or refuses
// says the bucket's size (RateLimit-Limit: requests a key may send at once) and the whole requests left in it now
// (RateLimit-Remaining).
func (h *handler) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.limiter == nil {
			next.ServeHTTP(w, r)
			return
		}
		ok, wait, remaining := h.limiter.take(principalOf(r.Context()).KeyID)
		w.Header().Set("RateLimit-Limit", strconv.Itoa(h.limiter.burst))
		w.Header().Set("RateLimit-Remaining", strconv.Itoa(remaining))
		if !ok {
			secs := max(1, int(math.Ceil(wait.Seconds())))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			h.writeError(w, r, newError(codeTooMany, "rate limit exceeded for this API key; retry after %d seconds", secs))
			return
		}
		next.ServeHTTP(w, r)
	})
}
