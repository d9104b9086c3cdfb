package chain

import (
	"context"
	"errors"
	"math/big"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/badged/badged/internal/errcode"
)

// A node mines a sender's transactions strictly in nonce order, so one nonce that never reaches it holds back every
// later transaction of the sender for good. That happens when a key is abandoned after ReserveNonce (its step ran
// out of retries, or its worker died before SaveSigned and the recipient was then failed), when a worker died
// between SaveSigned and the broadcast, and when the node lost transactions: it restarted and lost its pool, or it
// was reset or replaced and lost blocks too (then the store holds blocks for transactions the node never saw). Gap
// repair runs while an Anchorer waits for its own transaction: it asks the node for the sender's pending nonce and,
// for every nonce from there up to its own, re-sends the stored transaction in nonce order or, if the nonce was
// only reserved and long ago, sends a filler in its place. Blocks recorded for transactions the node lacks are
// forgotten first, and recorded again (see recordMined) once the node has mined them anew.

// fillerGas is the gas of a filler: a zero-value transfer to the sender itself with no data runs no code and costs
// exactly the base transaction gas.
const fillerGas = 21_000

// RepairStats counts what gap repair did in one Anchorer since it was created.
type RepairStats struct {
	// Resent counts stored signed transactions below an awaited nonce that were sent again: never broadcast (the
	// worker died after saving), or lost by the node. Fillers stored by another worker count here too.
	Resent uint64
	// Filled counts fillers this Anchorer signed, stored in place of an abandoned reservation and sent.
	Filled uint64
	// Failed counts gap checks that failed (node or store error); the wait goes on and the next check retries.
	Failed uint64
	// Behind counts gap checks that found the node lacking transactions the store records as mined: the node was
	// reset, replaced or rebuilt without them. Their blocks were forgotten and they were sent again.
	Behind uint64
}

type repairCounters struct{ resent, filled, failed, behind atomic.Uint64 }

// Repairs returns what gap repair has done so far, for tests and metrics.
func (a *Anchorer) Repairs() RepairStats {
	return RepairStats{Resent: a.repairs.resent.Load(), Filled: a.repairs.filled.Load(), Failed: a.repairs.failed.Load(),
		Behind: a.repairs.behind.Load()}
}

// repairGap makes every nonce of the sender up to nonce reach the node, so that the transaction with nonce can be
// mined. It is best effort: a failure is counted, not returned, because the caller's wait is still the right thing
// to do and the next check (or the retry of the anchor) tries again. One repair runs at a time per Anchorer: the
// others waiting meanwhile would only send the same bytes again.
func (a *Anchorer) repairGap(ctx context.Context, nonce uint64) {
	if !a.repairMu.TryLock() {
		return
	}
	defer a.repairMu.Unlock()
	if err := errors.Join(a.closeGap(ctx, nonce), a.recordMined(ctx)); err != nil {
		a.repairs.failed.Add(1)
	}
}

func (a *Anchorer) closeGap(ctx context.Context, nonce uint64) error {
	pending, err := a.client.PendingNonceAt(ctx, a.s.from)
	if err != nil {
		return rpcError("get pending nonce", err)
	}
	if pending > nonce {
		return nil // the node has (or has mined) every nonce up to ours: no gap
	}
	from := a.s.from.Hex()
	rs, err := a.store.Reservations(ctx, from, pending, nonce+1)
	if err != nil {
		return errcode.Wrap(errcode.InternalServerError, "list reserved nonces", err)
	}
	plan := planGap(rs, a.s.repairGrace)
	if plan.behind {
		// Forget before sending: if this process dies in between, the rows are left without a block, which
		// recordMined fills in; the other order could leave a block recorded that the node's chain does not have.
		if err := a.store.ForgetMined(ctx, from, pending, nonce+1); err != nil {
			return errcode.Wrap(errcode.InternalServerError, "forget lost blocks", err)
		}
		a.repairs.behind.Add(1)
	}
	var errs []error
	for _, r := range plan.send {
		if r.Signed {
			// Sending stored bytes again is always safe: the node keeps one copy, and they are what the key's own
			// retry would send.
			errs = append(errs, a.resend(ctx, r.Tx.RawTx))
		} else {
			errs = append(errs, a.fill(ctx, r))
		}
	}
	return errors.Join(errs...)
}

// gapPlan is what gap repair does about the reservations of the nonces a node lacks.
type gapPlan struct {
	// send lists, in nonce order, the signed reservations to send again and the abandoned ones to fill.
	send []Reservation
	// behind is set when one of them is recorded as mined: the node lost blocks, not only its pool.
	behind bool
}

// planGap decides what to do about rs, the reservations (by nonce) of the nonces the node lacks. An unsigned
// reservation younger than grace belongs to a live worker that is about to save and send it: it is left alone.
func planGap(rs []Reservation, grace time.Duration) gapPlan {
	var p gapPlan
	for _, r := range rs {
		switch {
		case r.Signed:
			p.send = append(p.send, r)
			p.behind = p.behind || r.Tx.BlockNumber > 0
		case r.Age >= grace:
			p.send = append(p.send, r)
		}
	}
	return p
}

// resend broadcasts a stored transaction of the gap and counts it if the node did not have it.
func (a *Anchorer) resend(ctx context.Context, raw []byte) error {
	fresh, err := a.send(ctx, raw)
	if errors.Is(err, errNonceTaken) {
		return nil // mined since the pending nonce was read
	}
	if err != nil {
		return err
	}
	if fresh {
		a.repairs.resent.Add(1)
	}
	return nil
}

// fill signs a filler for the abandoned reservation r, has the store swap it in for r atomically, and sends
// whatever the store then holds for that nonce.
func (a *Anchorer) fill(ctx context.Context, r Reservation) error {
	chainID, err := a.checkChainID(ctx)
	if err != nil {
		return err
	}
	tip, feeCap, err := a.fees(ctx)
	if err != nil {
		return err
	}
	self := a.s.from
	tx, err := types.SignNewTx(a.s.key, types.LatestSignerForChainID(new(big.Int).SetUint64(chainID)), &types.DynamicFeeTx{
		ChainID:   new(big.Int).SetUint64(chainID),
		Nonce:     r.Nonce,
		GasTipCap: tip,
		GasFeeCap: feeCap,
		Gas:       fillerGas,
		To:        &self,
		Value:     new(big.Int),
	})
	if err != nil {
		return errcode.Wrap(errcode.InternalServerError, "sign filler tx", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return errcode.Wrap(errcode.InternalServerError, "encode filler tx", err)
	}
	mine := Pending{From: self.Hex(), Nonce: r.Nonce, TxHash: tx.Hash().Hex(), RawTx: raw, ChainID: chainID}
	stored, ok, err := a.store.ReplaceAbandoned(ctx, r.Key, mine)
	if err != nil {
		return errcode.Wrap(errcode.InternalServerError, "replace abandoned reservation", err)
	}
	if !ok {
		// The owner saved its transaction after all, since Unsettled was read: send that one instead.
		p, found, err := a.store.Load(ctx, r.Key)
		if err != nil {
			return errcode.Wrap(errcode.InternalServerError, "load anchor tx", err)
		}
		if found && p.Nonce == r.Nonce {
			return a.resend(ctx, p.RawTx)
		}
		return nil
	}
	if stored.TxHash != mine.TxHash {
		return a.resend(ctx, stored.RawTx) // another worker's filler won
	}
	if err := a.broadcast(ctx, stored.RawTx); err != nil && !errors.Is(err, errNonceTaken) {
		return err // stored: the next check re-sends it as a signed reservation
	}
	a.repairs.filled.Add(1)
	return nil
}
