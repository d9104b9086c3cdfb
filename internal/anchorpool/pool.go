package anchorpool

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// DefaultWait is the longest a credential waits for others to share its anchor transaction. The wait ends
// sooner when no other credential of this process is on its way to the anchor step (see Expect).
const DefaultWait = 2 * time.Second

// HeadedTTL is how long a credential that entered the check or sign step counts as on its way to the anchor step.
// Past it (its workflow was cancelled, its anchor step ran on another worker) it no longer holds a batch back.
const HeadedTTL = time.Minute

// MaxBatch caps the credentials of one transaction, so that its Merkle proofs stay short (12 hashes at 4,096)
// and its assignment is one modest statement. Reaching it sends the transaction without waiting.
const MaxBatch = 4096

// Pool gathers the credentials that wait for an anchor transaction in this worker process. Each worker has its
// own; several workers simply make several transactions. A batch goes when it holds MaxBatch credentials, when its
// first credential has waited Wait, or, once MinWait has passed, when no credential of this process is on its way
// to the anchor step. Set the fields before the first call; they are not changed afterwards.
type Pool struct {
	// Wait is how long a credential waits at most for others; zero means DefaultWait.
	Wait time.Duration
	// MinWait is how long a batch waits at least, even when no other credential is on its way: zero sends an
	// issuance as soon as all its chunks arrived; more gathers a trickle of small issuances into fewer
	// transactions at the cost of their latency.
	MinWait time.Duration
	// Assign gives the credentials of one batch their anchor transaction; its error is every waiter's. It runs
	// outside the pool's lock, on a goroutine of its own or the timer's, so a waiter that gives up (its context
	// ends) does not stop it: a retried step may find its credentials assigned.
	Assign func(ids []uuid.UUID) error
	// Clock is nil for the system clock.
	Clock Clock

	mu      sync.Mutex
	waiting []waiter
	n       int         // credentials waiting
	since   time.Time   // when the first of them arrived
	stop    func() bool // the armed timer's Stop; nil when none is armed
	gen     int         // the batch the timer was armed for; a timer of an earlier batch does nothing
	headed  map[uuid.UUID]time.Time
}

// waiter is one Join: its credentials and where their batch's outcome goes.
type waiter struct {
	ids  []uuid.UUID
	done chan error
}

// Clock is the time the pool reads and the timer it arms.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f on its own goroutine after d and returns a function that stops it (see time.Timer.Stop).
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

func (p *Pool) clock() Clock {
	if p.Clock == nil {
		return systemClock{}
	}
	return p.Clock
}

func (p *Pool) wait() time.Duration {
	if p.Wait > 0 {
		return p.Wait
	}
	return DefaultWait
}

// Expect records that ids are on their way to the anchor step (their check or sign step starts). While any
// is, the waiting credentials wait for it (up to Wait); once none is, waiting longer gains nothing, so the
// batch goes at once. This keeps one transaction for an issuance's chunks without idling the machine.
func (p *Pool) Expect(ids []uuid.UUID) {
	now := p.clock().Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.headed == nil {
		p.headed = map[uuid.UUID]time.Time{}
	}
	for _, id := range ids {
		p.headed[id] = now
	}
}

// GiveUp records that ids are not on their way to the anchor step any more (they reached it without needing an
// assignment, or their step failed: a retry expects them again), and sends the waiting batch if it is now ready.
// Ids that are not expected change nothing, but a batch that became ready meanwhile goes.
func (p *Pool) GiveUp(ids []uuid.UUID) {
	if len(ids) == 0 {
		return
	}
	p.mu.Lock()
	for _, id := range ids {
		delete(p.headed, id)
	}
	p.settleAndUnlock()
}

// Join adds ids to the waiting batch and returns where the batch's outcome will be sent (once, buffered).
// arrived is the whole chunk (ids and the credentials that reached the anchor step without needing an
// assignment): it stops counting as on its way in the same step as ids join the batch.
func (p *Pool) Join(ids, arrived []uuid.UUID) <-chan error {
	w := waiter{ids: ids, done: make(chan error, 1)}
	p.mu.Lock()
	if len(p.waiting) == 0 {
		p.since = p.clock().Now()
	}
	p.waiting = append(p.waiting, w)
	p.n += len(ids)
	for _, id := range arrived {
		delete(p.headed, id)
	}
	p.settleAndUnlock()
	return w.done
}

// Gather joins the batch (see Join) and waits until it is assigned, or ctx ends.
func (p *Pool) Gather(ctx context.Context, ids, arrived []uuid.UUID) error {
	done := p.Join(ids, arrived)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Waiting is how many credentials wait in the batch not yet sent.
func (p *Pool) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// settleAndUnlock sends the waiting batch if it is ready (see settleLocked) and releases p.mu, which is held; the
// assignment runs on its own goroutine, so neither the caller nor the lock waits for it.
func (p *Pool) settleAndUnlock() {
	batch := p.settleLocked()
	p.mu.Unlock()
	if batch != nil {
		go p.assign(batch)
	}
}

// settleLocked takes the waiting batch when it is ready to go, or arms the timer for the moment it will be at the
// latest; p.mu is held.
func (p *Pool) settleLocked() []waiter {
	if len(p.waiting) == 0 {
		return nil
	}
	now := p.clock().Now()
	waited := now.Sub(p.since)
	if p.n >= MaxBatch || waited >= p.wait() || (waited >= p.MinWait && p.noneHeadedLocked(now)) {
		return p.takeLocked()
	}
	if p.stop == nil {
		next := p.wait()
		if waited < p.MinWait {
			next = p.MinWait
		}
		gen := p.gen
		p.stop = p.clock().AfterFunc(next-waited, func() {
			p.mu.Lock()
			var batch []waiter
			if p.gen == gen {
				p.stop = nil
				batch = p.settleLocked()
			}
			p.mu.Unlock()
			p.assign(batch)
		})
	}
	return nil
}

// noneHeadedLocked reports whether no credential is on its way to the anchor step; p.mu is held. Entries older than
// HeadedTTL are dropped on the way.
func (p *Pool) noneHeadedLocked(now time.Time) bool {
	for id, seen := range p.headed {
		if now.Sub(seen) < HeadedTTL {
			return false
		}
		delete(p.headed, id)
	}
	return true
}

// takeLocked empties the pool; p.mu is held.
func (p *Pool) takeLocked() []waiter {
	batch := p.waiting
	p.waiting, p.n = nil, 0
	p.gen++
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
	return batch
}

// assign runs Assign on the batch's credentials and tells each waiter the outcome.
func (p *Pool) assign(batch []waiter) {
	if len(batch) == 0 {
		return
	}
	var ids []uuid.UUID
	for _, w := range batch {
		ids = append(ids, w.ids...)
	}
	err := p.Assign(ids)
	for _, w := range batch {
		w.done <- err
	}
}
