package chain

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/common"

	"github.com/badged/badged/internal/errcode"
)

// recordMined records the block of every stored transaction that the node has mined (its nonce is below the
// sender's mined nonce) but whose block the store does not hold: transactions re-broadcast after the node lost
// them (their old block was forgotten by gap repair), fillers, and transactions whose own waiter gave up or died.
// It runs with each gap check and after each anchor is mined, so a re-mined anchor's new block is recorded by the
// next anchor that settles, whoever sent it.
func (a *Anchorer) recordMined(ctx context.Context) error {
	mined, err := a.client.NonceAt(ctx, a.s.from, nil)
	if err != nil {
		return rpcError("get mined nonce", err)
	}
	if mined == 0 {
		return nil
	}
	rs, err := a.store.Unsettled(ctx, a.s.from.Hex(), 0, mined)
	if err != nil {
		return errcode.Wrap(errcode.InternalServerError, "list unsettled nonces", err)
	}
	var errs []error
	for _, r := range rs {
		if !r.Signed {
			continue // a reservation below the mined nonce without a transaction: its nonce went to another one
		}
		rc, err := a.client.TransactionReceipt(ctx, common.HexToHash(r.Tx.TxHash))
		if isNotFound(err) {
			continue // its nonce was used by another transaction, or the index lags: the next pass looks again
		}
		if err != nil {
			errs = append(errs, rpcError("get receipt", err))
			continue
		}
		if rc.BlockNumber == nil || !rc.BlockNumber.IsUint64() || rc.BlockNumber.Sign() <= 0 {
			continue
		}
		if err := a.store.MarkMined(ctx, r.Key, rc.BlockNumber.Uint64()); err != nil {
			errs = append(errs, errcode.Wrap(errcode.InternalServerError, "record anchor block", err))
		}
	}
	return errors.Join(errs...)
}
