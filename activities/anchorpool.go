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
	"github.com/badged/badged/internal/anchorpool"
	"github.com/badged/badged/internal/chain"
)

// DefaultAnchorWait is the longest a credential waits for others to share its anchor transaction (see
// internal/anchorpool for when a batch goes).
const DefaultAnchorWait = anchorpool.DefaultWait

// assignTimeout bounds the transaction that assigns one batch of credentials to its anchor key.
const assignTimeout = 30 * time.Second

// anchorState is the anchor step's state in this worker process; the zero value is ready to use.
type anchorState struct {
	once    sync.Once
	pool    *anchorpool.Pool   // credentials waiting for an anchor transaction; see anchorPool
	flights singleflight.Group // anchor transactions being sent or awaited, by key
}

// anchorPool is the worker's pool, built on first use from AnchorWait and AnchorMinWait.
func (a *Activities) anchorPool() *anchorpool.Pool {
	a.anchors.once.Do(func() {
		a.anchors.pool = &anchorpool.Pool{Wait: a.AnchorWait, MinWait: a.AnchorMinWait, Assign: a.assignBatch}
	})
	return a.anchors.pool
}

// headedForAnchor runs a step that precedes the anchor step (check, sign) and tells the anchor pool that its
// recipients are on their way, until they arrive there or fail.
func (a *Activities) headedForAnchor(ctx context.Context, step string, in StepBatch, run stepFunc) (StepResult, error) {
	pool := a.anchorPool()
	pool.Expect(in.Assertions)
	res, err := a.runStep(ctx, step, in, run)
	if err != nil {
		pool.GiveUp(in.Assertions)
		return res, err
	}
	failed := make([]uuid.UUID, len(res.Failed))
	for i, f := range res.Failed {
		failed[i] = f.AssertionID
	}
	pool.GiveUp(failed)
	return res, nil
}

// assignBatch gives one batch of the pool a new anchor key.
func (a *Activities) assignBatch(ids []uuid.UUID) error {
	ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
	defer cancel()
	if err := a.assignAnchor(ctx, "anchor/"+uuid.NewString(), ids); err != nil {
		return persistErr("assign anchor transaction", err)
	}
	return nil
}

// assignAnchor records, in one transaction, which credentials the transaction stored under key will carry and
// each one's inclusion proof (see merkleAssignment). Credentials assigned meanwhile (a retried step of a worker
// presumed dead) are left out. In the same transaction the live credentials are appended to their organizations'
// issuance logs and each new checkpoint's root joins the anchor's Merkle tree as one more leaf, so the chain commits
// to the log's state with the credentials, and a crash leaves neither an entry without its anchor nor the reverse.
func (a *Activities) assignAnchor(ctx context.Context, key string, ids []uuid.UUID) error {
	return a.DB.InTx(ctx, func(q *db.Queries) error {
		rows, err := q.LockAnchorCandidates(ctx, ids)
		if err != nil || len(rows) == 0 {
			return err
		}
		locked := make(map[uuid.UUID]bool, len(rows))
		for _, r := range rows {
			locked[r.ID] = true
		}
		inOrder := slices.DeleteFunc(slices.Clone(ids), func(id uuid.UUID) bool { return !locked[id] })
		checkpoints, err := a.logCredentials(ctx, q, inOrder, &key)
		if err != nil {
			return err
		}
		leaves := anchorLeaves(rows, func(r db.LockAnchorCandidatesRow) (uuid.UUID, []byte) { return r.ID, r.CredentialSha256 }, checkpoints)
		params := db.AssignAnchorParams{AnchorKey: key}
		if params.Ids, params.Proofs, err = assignLeaves(ctx, q, leaves); err != nil {
			return err
		}
		n, err := q.AssignAnchor(ctx, params)
		if err == nil && int(n) != len(rows) {
			err = fmt.Errorf("assigned %d of %d locked credentials", n, len(rows))
		}
		return err
	})
}

// merkleAssignment orders the credentials of one anchor transaction (id and SHA-256 digest of each, read by
// leaf) as its Merkle tree's leaves and returns their ids and JSON inclusion proofs in that order. The leaves are
// the digests in byte order, the order the members are read back in (ListAnchorMembers, ListWalletAnchorMembers),
// so whoever sends the transaction later builds the same root. It sorts rows in place.
func merkleAssignment[R any](rows []R, leaf func(R) (uuid.UUID, []byte)) ([]uuid.UUID, []string, error) {
	slices.SortFunc(rows, func(x, y R) int {
		_, dx := leaf(x)
		_, dy := leaf(y)
		return bytes.Compare(dx, dy)
	})
	digests := make([][32]byte, len(rows))
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		var d []byte
		ids[i], d = leaf(r)
		copy(digests[i][:], d)
	}
	_, proofs := chain.BuildMerkle(digests)
	out := make([]string, len(rows))
	for i := range proofs {
		proof, err := json.Marshal(proofs[i])
		if err != nil {
			return nil, nil, err
		}
		out[i] = string(proof)
	}
	return ids, out, nil
}
