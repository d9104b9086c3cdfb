package chain

import (
	"context"
	"errors"
	"math/big"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/badged/badged/internal/errcode"
)

// A node mines a sender's transactions strictly in nonce order, so one nonce that never reaches it holds back every
// later transaction of the sender for good. That happens when a key is abandoned after ReserveNonce (its step ran
// out of retries, or its worker died before SaveSigned and the recipient was then failed), when a worker died
// between SaveSigned and the broadcast, and when the node restarted and lost its pool. Gap repair runs while an
// Anchorer waits for its own transaction: it asks the node for the sender's pending nonce and, for every nonce of
// the gap below its own, re-sends the stored transaction or, if the nonce was only reserved and long ago, sends a
// filler in its place.

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
}

type repairCounters struct{ resent, filled, failed atomic.Uint64 }

// Repairs returns what gap repair has done so far, for tests and metrics.
func (a *Anchorer) Repairs() RepairStats {
	return RepairStats{Resent: a.repairs.resent.Load(), Filled: a.repairs.filled.Load(), Failed: a.repairs.failed.Load()}
}

// repairGap makes every nonce of the sender below nonce reach the node, so that the transaction with nonce can be
// mined. It is best effort: a failure is counted, not returned, because the caller's wait is still the right thing
// to do and the next check (or the retry of the anchor) tries again.
func (a *Anchorer) repairGap(ctx context.Context, nonce uint64) {
	if nonce == 0 {
		return // nothing below
	}
	if err := a.closeGap(ctx, nonce); err != nil {
		a.repairs.failed.Add(1)
	}
}

func (a *Anchorer) closeGap(ctx context.Context, nonce uint64) error {
	pending, err := a.client.PendingNonceAt(ctx, a.s.from)
	if err != nil {
		return rpcError("get pending nonce", err)
	}
	if pending >= nonce {
		return nil // the node has (or has mined) every lower nonce: no gap
	}
	rs, err := a.store.Unsettled(ctx, a.s.from.Hex(), pending, nonce)
	if err != nil {
		return errcode.Wrap(errcode.InternalServerError, "list unsettled nonces", err)
	}
	var errs []error
	for _, r := range rs {
		switch {
		case r.Signed:
			// Sending stored bytes again is always safe: the node keeps one copy, and they are what the key's own
			// retry would send.
			if err := a.resend(ctx, r.Tx.RawTx); err != nil {
				errs = append(errs, err)
			}
		case r.Age >= a.s.repairGrace:
			if err := a.fill(ctx, r); err != nil {
				errs = append(errs, err)
			}
		}
		// A younger unsigned reservation belongs to a live worker that is about to save and send: leave it alone.
	}
	return errors.Join(errs...)
}

// resend broadcasts a stored transaction of the gap and counts it.
func (a *Anchorer) resend(ctx context.Context, raw []byte) error {
	err := a.broadcast(ctx, raw)
	if errors.Is(err, errNonceTaken) {
		return nil // mined since the pending nonce was read
	}
	if err != nil {
		return err
	}
	a.repairs.resent.Add(1)
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
