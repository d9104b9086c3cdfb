package chain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/badged/badged/internal/errcode"
)

// errNonceTaken marks a broadcast refused because the account's nonce has moved past the transaction's.
var errNonceTaken = errors.New("nonce already used")

// Node error texts (go-ethereum core and txpool; other clients use the same words) that decide how a refused
// broadcast is treated.
const (
	msgAlreadyKnown = "already known"
	msgNonceTooLow  = "nonce too low"
	msgIndexing     = "transaction indexing is in progress"
)

// broadcast sends raw with eth_sendRawTransaction. A node that already has the transaction is success; a node that
// says the nonce is too low yields errNonceTaken for the caller to look for the receipt.
func (a *Anchorer) broadcast(ctx context.Context, raw []byte) error {
	_, err := a.send(ctx, raw)
	return err
}

// send is broadcast that also tells whether the node took the transaction as new (fresh) rather than already known.
func (a *Anchorer) send(ctx context.Context, raw []byte) (fresh bool, err error) {
	err = a.client.Client().CallContext(ctx, nil, "eth_sendRawTransaction", hexutil.Encode(raw))
	if err == nil {
		return true, nil
	}
	if !isNodeError(err) {
		return false, rpcError("send anchor tx", err)
	}
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, msgAlreadyKnown):
		return false, nil
	case strings.Contains(msg, msgNonceTooLow):
		return false, fmt.Errorf("send anchor tx: %w: %w", errNonceTaken, err)
	default:
		return false, errcode.Wrap(errcode.BlockchainTxRejected, "node refused anchor tx", err)
	}
}

// waitReceipt polls for the receipt of hash until it appears, ReceiptTimeout passes or ctx ends. A transaction with
// nonce n can only be mined once it and every lower nonce of the sender have reached the node, so with repair set
// the nonces up to n the node lacks are sent again when the wait starts and every gapCheck while it goes on.
func (a *Anchorer) waitReceipt(ctx context.Context, hash common.Hash, nonce uint64, repair bool) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, a.s.receiptTimeout)
	defer cancel()
	ticker := time.NewTicker(a.s.pollInterval)
	defer ticker.Stop()
	var lastErr error
	var lastCheck time.Time
	for {
		if repair && time.Since(lastCheck) >= a.s.gapCheck {
			a.repairGap(ctx, nonce)
			lastCheck = time.Now()
		}
		r, err := a.client.TransactionReceipt(ctx, hash)
		if err == nil {
			return r, nil
		}
		if !isNotFound(err) {
			// A transport hiccup while waiting is not fatal: the transaction is out there; keep polling.
			lastErr = err
		}
		select {
		case <-ctx.Done():
			cause := ctx.Err()
			if lastErr != nil {
				cause = errors.Join(cause, lastErr)
			}
			return nil, errcode.Wrap(errcode.BlockchainTxResultUnknown,
				fmt.Sprintf("no receipt for anchor tx %s yet; retry with the same key", hash.Hex()), cause)
		case <-ticker.C:
		}
	}
}

// isNodeError reports whether err is a JSON-RPC error answered by the node, as opposed to a transport failure.
func isNodeError(err error) bool {
	var httpErr rpc.HTTPError
	if errors.As(err, &httpErr) {
		return false
	}
	var rpcErr rpc.Error
	return errors.As(err, &rpcErr)
}

// isNotFound reports whether err means "no such transaction, receipt or block (yet)". go-ethereum answers
// "transaction indexing is in progress" instead of null while its index lags the head, which on a busy chain is
// often: that is a "not yet" too.
func isNotFound(err error) bool {
	return errors.Is(err, ethereum.NotFound) || (isNodeError(err) && strings.Contains(err.Error(), msgIndexing))
}

// rpcError maps a failed read call to BLOCKCHAIN_RPC_FAILED.
func rpcError(what string, err error) error {
	return errcode.Wrap(errcode.BlockchainRPCFailed, what, err)
}
