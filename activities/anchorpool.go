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

// DefaultAnchorWait is how long a credential waits for others to share its anchor transaction. Credentials that
// arrive together (one big issuance's chunks, many small issuances at once) share one transaction; a lone
// credential is anchored after this wait at most, never held for a big batch.
const DefaultAnchorWait = 2 * time.Second

// maxAnchorBatch caps the credentials of one transaction, so that its Merkle proofs stay short (12 hashes at
// 4,096) and its assignment is one modest statement. Reaching it sends the transaction without waiting.
const maxAnchorBatch = 4096

// anchorPool gathers the credentials that wait for an anchor transaction in this worker process. Each worker has
// its own; several workers simply make several transactions. The zero value is ready to use.
type anchorPool struct {
	mu      sync.Mutex
	waiting []anchorWaiter
	n       int         // credentials waiting
	timer   *time.Timer // fires when the first of them has waited AnchorWait

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
// credential that arrived within the wait (or until maxAnchorBatch of them wait). The assignment itself runs on
// its own: a chunk that gives up waiting may find its credentials assigned when it is retried.
func (a *Activities) gather(ctx context.Context, ids []uuid.UUID) error {
	w := anchorWaiter{ids: ids, done: make(chan error, 1)}
	p := &a.anchors
	p.mu.Lock()
	p.waiting = append(p.waiting, w)
	p.n += len(ids)
	switch {
	case p.n >= maxAnchorBatch:
		batch := p.takeLocked()
		p.mu.Unlock()
		go a.assign(batch)
	case p.timer == nil:
		p.timer = time.AfterFunc(a.anchorWait(), func() {
			p.mu.Lock()
			batch := p.takeLocked()
			p.mu.Unlock()
			a.assign(batch)
		})
		p.mu.Unlock()
	default:
		p.mu.Unlock()
	}
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// takeLocked empties the pool; p.mu is held.
func (p *anchorPool) takeLocked() []anchorWaiter {
	batch := p.waiting
	p.waiting, p.n = nil, 0
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
