package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/singleflight"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
)

// DefaultAnchorWait is the longest a credential waits for others to share its anchor transaction. Credentials that
// arrive together (one big issuance's chunks, many small issuances at once) share one transaction; a lone
// credential is anchored after this wait at most, never held for a big batch. The wait ends sooner when no
// other credential of this process is on its way to the anchor step (see headed).
const DefaultAnchorWait = 2 * time.Second

// headedTTL is how long a credential that entered the check or sign step counts as on its way to the anchor step.
// Past it (its workflow was cancelled, its anchor step ran on another worker) it no longer holds a batch back.
const headedTTL = time.Minute

// maxAnchorBatch caps the credentials of one transaction, so that its Merkle proofs stay short (12 hashes at
// 4,096) and its assignment is one modest statement. Reaching it sends the transaction without waiting.
const maxAnchorBatch = 4096

// anchorPool gathers the credentials that wait for an anchor transaction in this worker process. Each worker has
// its own; several workers simply make several transactions. The zero value is ready to use.
type anchorPool struct {
	mu      sync.Mutex
	waiting []anchorWaiter
	n       int       // credentials waiting
	since   time.Time // when the first of them arrived
	timer   *time.Timer
	gen     int // the batch the timer was armed for; a timer of an earlier batch does nothing
	// headed holds the credentials of this process between the start of their check or sign step and their
	// arrival at the anchor step (or their failure), with the time they were last seen. While any is on its way,
	// the waiting credentials wait for it (up to AnchorWait); once none is, waiting longer gains nothing, so the
	// batch goes at once. This keeps one transaction for an issuance's chunks without idling the machine.
	headed map[uuid.UUID]time.Time

	flights singleflight.Group // anchor transactions being sent or awaited, by key
}

type anchorWaiter struct {
	ids  []uuid.UUID
	done chan error // receives the assignment's outcome
}

func (a *Activities) anchorWait() time.Duration {
	if a.AnchorWait > 0 {
		return a.AnchorWait
	}
	return DefaultAnchorWait
}

// gather waits until the credentials of ids are assigned to an anchor transaction, together with every other
// credential that arrived meanwhile (see settleLocked for when the batch goes). arrived is the whole chunk (ids and
// the credentials that reached the anchor step without needing an assignment): it stops counting as on its way in
// the same step as ids join the batch. The assignment itself runs on its own: a chunk that gives up waiting may find
// its credentials assigned when it is retried.
func (a *Activities) gather(ctx context.Context, ids, arrived []uuid.UUID) error {
	w := anchorWaiter{ids: ids, done: make(chan error, 1)}
	p := &a.anchors
	p.mu.Lock()
	if len(p.waiting) == 0 {
		p.since = time.Now()
	}
	p.waiting = append(p.waiting, w)
	p.n += len(ids)
	for _, id := range arrived {
		delete(p.headed, id)
	}
	if batch := a.settleLocked(); batch != nil {
		go a.assign(batch)
	}
	p.mu.Unlock()
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// headedForAnchor runs a step that precedes the anchor step (check, sign) and tells the anchor pool that its
// recipients are on their way, until they arrive there or fail.
func (a *Activities) headedForAnchor(ctx context.Context, step string, in StepBatch, run stepFunc) (StepResult, error) {
	a.anchors.expect(in.Assertions)
	res, err := a.runStep(ctx, step, in, run)
	if err != nil {
		a.giveUp(in.Assertions)
		return res, err
	}
	failed := make([]uuid.UUID, len(res.Failed))
	for i, f := range res.Failed {
		failed[i] = f.AssertionID
	}
	a.giveUp(failed)
	return res, nil
}

// expect records that ids are on their way to the anchor step (their check or sign step starts).
func (p *anchorPool) expect(ids []uuid.UUID) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.headed == nil {
		p.headed = map[uuid.UUID]time.Time{}
	}
	for _, id := range ids {
		p.headed[id] = now
	}
}

// giveUp records that ids are not on their way to the anchor step any more (they reached it without needing an
// assignment, or their step failed: a retry expects them again), and sends the waiting batch if it is now ready.
func (a *Activities) giveUp(ids []uuid.UUID) {
	if len(ids) == 0 {
		return
	}
	p := &a.anchors
	p.mu.Lock()
	for _, id := range ids {
		delete(p.headed, id)
	}
	if batch := a.settleLocked(); batch != nil {
		go a.assign(batch)
	}
	p.mu.Unlock()
}

// settleLocked takes the waiting batch when it is ready to go, or arms the timer for the moment it will be at the
// latest; p.mu is held. A batch goes when it holds maxAnchorBatch credentials, when its first credential has
// waited AnchorWait, or, once AnchorMinWait has passed, when no credential of this process is on its way to the
// anchor step.
func (a *Activities) settleLocked() []anchorWaiter {
	p := &a.anchors
	if len(p.waiting) == 0 {
		return nil
	}
	now := time.Now()
	waited := now.Sub(p.since)
	if p.n >= maxAnchorBatch || waited >= a.anchorWait() || (waited >= a.AnchorMinWait && p.noneHeadedLocked(now)) {
		return p.takeLocked()
	}
	if p.timer == nil {
		next := a.anchorWait()
		if waited < a.AnchorMinWait {
			next = a.AnchorMinWait
		}
		gen := p.gen
		p.timer = time.AfterFunc(next-waited, func() {
			p.mu.Lock()
			var batch []anchorWaiter
			if p.gen == gen {
				p.timer = nil
				batch = a.settleLocked()
			}
			p.mu.Unlock()
			a.assign(batch)
		})
	}
	return nil
}

// noneHeadedLocked reports whether no credential is on its way to the anchor step; p.mu is held. Entries older than
// headedTTL are dropped on the way.
func (p *anchorPool) noneHeadedLocked(now time.Time) bool {
	for id, seen := range p.headed {
		if now.Sub(seen) < headedTTL {
			return false
		}
		delete(p.headed, id)
	}
	return true
}

// takeLocked empties the pool; p.mu is held.
func (p *anchorPool) takeLocked() []anchorWaiter {
	batch := p.waiting
	p.waiting, p.n = nil, 0
	p.gen++
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	return batch
}

// assign gives the waiting credentials one anchor key and tells each waiter the outcome.
func (a *Activities) assign(batch []anchorWaiter) {
	if len(batch) == 0 {
		return
	}
	var ids []uuid.UUID
	for _, w := range batch {
		ids = append(ids, w.ids...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := a.assignAnchor(ctx, "anchor/"+uuid.NewString(), ids)
	if err != nil {
		err = persistErr("assign anchor transaction", err)
	}
	for _, w := range batch {
		w.done <- err
	}
}

// assignAnchor records, in one transaction, which credentials the transaction stored under key will carry and
// each one's inclusion proof. The leaves are the credentials' digests in byte order, the order ListAnchorMembers
// reads them back in, so whoever sends the transaction later builds the same root. Credentials assigned
// meanwhile (a retried step of a worker presumed dead) are left out.
func (a *Activities) assignAnchor(ctx context.Context, key string, ids []uuid.UUID) error {
	return a.DB.InTx(ctx, func(q *db.Queries) error {
		rows, err := q.LockAnchorCandidates(ctx, ids)
		if err != nil || len(rows) == 0 {
			return err
		}
		slices.SortFunc(rows, func(x, y db.LockAnchorCandidatesRow) int {
			return bytes.Compare(x.CredentialSha256, y.CredentialSha256)
		})
		digests := make([][32]byte, len(rows))
		for i, r := range rows {
			copy(digests[i][:], r.CredentialSha256)
		}
		_, proofs := chain.BuildMerkle(digests)
		params := db.AssignAnchorParams{AnchorKey: key, Ids: make([]uuid.UUID, len(rows)), Proofs: make([]string, len(rows))}
		for i, r := range rows {
			proof, err := json.Marshal(proofs[i])
			if err != nil {
				return err
			}
			params.Ids[i], params.Proofs[i] = r.ID, string(proof)
		}
		n, err := q.AssignAnchor(ctx, params)
		if err == nil && int(n) != len(rows) {
			err = fmt.Errorf("assigned %d of %d locked credentials", n, len(rows))
		}
		return err
	})
}
