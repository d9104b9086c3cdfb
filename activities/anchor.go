package activities

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
)

// anchorSettleTimeout bounds one wait for an anchor transaction to be mined; the step's retries go on after it.
const anchorSettleTimeout = 2 * time.Minute

// AnchorCredentials puts the SHA-256 of each signed credential on chain. Credentials that wait for an anchor in
// this worker at the same time (any chunk, batch or issuance) share ONE transaction carrying the root of a Merkle
// tree of their digests, and each keeps its inclusion proof, as Blockcerts does: one transaction and a few dozen
// gas per credential instead of ~22,000 (see internal/anchorpool for the wait). A credential is assigned to its
// transaction in Postgres before the transaction is signed, so a retry after a crash waits for the same
// transaction. Test-mode issuances and a service without a chain record the step as skipped.
func (a *Activities) AnchorCredentials(ctx context.Context, in StepBatch) (StepResult, error) {
	return a.runStep(ctx, "anchor", in, a.anchorCredentials)
}

func (a *Activities) anchorCredentials(ctx context.Context, ids []uuid.UUID) (failures, error) {
	// The chunk has arrived at the anchor step: on every path, an early error included, the anchor pool must stop
	// holding other credentials back for it (Gather and the GiveUp below tell it sooner; a second time is a no-op).
	defer a.anchorPool().GiveUp(ids)
	rows, err := a.DB.ListAnchorState(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load anchor state: %w", err)
	}
	failed := failures{}
	var skip, unassigned []uuid.UUID
	for _, r := range rows {
		switch {
		case r.Step != StepSigned:
		case a.Anchor == nil || r.Mode != apikey.ModeLive:
			skip = append(skip, r.ID)
		case r.AnchorKey == nil:
			unassigned = append(unassigned, r.ID)
		}
	}
	if len(skip) > 0 {
		// Without a chain, live credentials still go into their issuance logs (test ones never do), with the step.
		err := a.DB.InTx(ctx, func(q *db.Queries) error {
			if _, err := a.logCredentials(ctx, q, skip, nil); err != nil {
				return err
			}
			_, err := q.AdvanceAssertions(ctx, db.AdvanceAssertionsParams{Ids: skip, Step: StepAnchored, FromStep: StepSigned})
			return err
		})
		if err != nil {
			return nil, persistErr("record skipped anchors", err)
		}
	}
	if len(unassigned) == 0 {
		a.anchorPool().GiveUp(ids)
	} else {
		if err := a.anchorPool().Gather(ctx, unassigned, ids); err != nil {
			return nil, err
		}
		if rows, err = a.DB.ListAnchorState(ctx, ids); err != nil {
			return nil, fmt.Errorf("load anchor state: %w", err)
		}
	}
	byKey := map[string][]uuid.UUID{}
	for _, r := range rows {
		if r.Step == StepSigned && r.AnchorKey != nil && r.Mode == apikey.ModeLive && a.Anchor != nil {
			byKey[*r.AnchorKey] = append(byKey[*r.AnchorKey], r.ID)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(byKey)) {
		if err := a.settleAnchor(ctx, key); err != nil {
			for _, id := range byKey[key] {
				failed[id] = err
			}
		}
	}
	return failed, nil
}

// settleAnchor sends the transaction of an anchor key (or finds it sent) and waits until it is mined, then records
// the anchor of every credential assigned to it. Chunks of this worker that share the key share one call; it runs
// on its own deadline, so a chunk that gives up does not fail the others waiting on it.
func (a *Activities) settleAnchor(ctx context.Context, key string) error {
	ch := a.anchors.flights.DoChan(key, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), anchorSettleTimeout)
		defer cancel()
		members, err := a.DB.ListAnchorMembers(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("load anchor members: %w", err)
		}
		// The tree's leaves are the credentials' digests and the roots of the issuance log checkpoints signed with
		// them (assignAnchor), in byte order: the order merkleAssignment gave their proofs in.
		digests := make([][32]byte, len(members))
		for i, m := range members {
			copy(digests[i][:], m.CredentialSha256)
		}
		if digests, err = withCheckpointRoots(ctx, a.DB.Queries, key, digests); err != nil {
			return nil, fmt.Errorf("load issuance log checkpoints of the anchor: %w", err)
		}
		b, err := a.Anchor.AnchorBatch(ctx, key, digests)
		if err != nil {
			return nil, err
		}
		if _, err := a.DB.RecordAnchorMined(ctx, db.RecordAnchorMinedParams{AnchorKey: key, TxHash: b.TxHash,
			Block: int64(b.BlockNumber), ChainID: int64(b.ChainID)}); err != nil {
			return nil, persistErr("record anchor", err)
		}
		return nil, nil
	})
	select {
	case r := <-ch:
		return r.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}
