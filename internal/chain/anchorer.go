package chain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/badged/badged/internal/errcode"
)

// Anchor is where a digest is anchored: what the assertion stores and the verification page shows.
type Anchor struct {
	TxHash      string // 0x-prefixed transaction hash
	BlockNumber uint64 // block that includes the transaction
	ChainID     uint64 // EIP-155 chain id of the chain
}

// Anchorer puts digests on chain, one transaction per anchor key. It is safe for concurrent use; several Anchorers
// (workers) may share one sender key as long as they share one TxStore.
type Anchorer struct {
	*Verifier
	s     settings
	store TxStore

	mu      sync.Mutex
	chainID uint64 // checked chain id, 0 until the node has been asked

	repairMu sync.Mutex // held by the one gap repair running
	repairs  repairCounters
}

// New validates cfg and returns an Anchorer that records its transactions in store. It does no network I/O, so it
// succeeds while the node is down; a missing setting fails with BLOCKCHAIN_CONFIG_MISSING and a malformed one with
// BLOCKCHAIN_CONFIG_INVALID.
func New(cfg Config, store TxStore) (*Anchorer, error) {
	s, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if store == nil {
		return nil, errcode.New(errcode.InternalServerError, "chain anchorer needs a tx store")
	}
	v, err := NewVerifier(s.rpcURL)
	if err != nil {
		return nil, err
	}
	return &Anchorer{Verifier: v, s: s, store: store}, nil
}

// From returns the sender address (EIP-55 hex).
func (a *Anchorer) From() string { return a.s.from.Hex() }

// To returns the address anchor transactions are sent to (EIP-55 hex).
func (a *Anchorer) To() string { return a.s.to.Hex() }

// Anchor puts digest on chain under key and waits for the receipt. Calling it again with the same key never sends a
// second transaction: it re-checks the stored one, re-broadcasts its raw bytes if it is not mined, and returns its
// anchor once it is. Reusing a key with another digest is refused (INTERNAL_SERVER_ERROR).
//
// Errors: BLOCKCHAIN_CONFIG_INVALID (node's chain id differs from the configured one), BLOCKCHAIN_RPC_FAILED (node
// unreachable), BLOCKCHAIN_TX_REJECTED (node refused the transaction), BLOCKCHAIN_TX_RESULT_UNKNOWN (sent, no receipt
// before ReceiptTimeout or ctx ended: retry with the same key), BLOCKCHAIN_TX_REVERTED (receipt status 0),
// BLOCKCHAIN_RECEIPT_INVALID (the receipt or mined transaction does not match what was sent), INTERNAL_SERVER_ERROR
// (the store failed).
func (a *Anchorer) Anchor(ctx context.Context, key string, digest [32]byte) (Anchor, error) {
	if key == "" {
		return Anchor{}, errcode.New(errcode.InternalServerError, "anchor key is empty")
	}
	p, found, err := a.store.Load(ctx, key)
	if err != nil {
		return Anchor{}, errcode.Wrap(errcode.InternalServerError, "load anchor tx", err)
	}
	if found {
		if p.Digest != digest {
			return Anchor{}, errcode.New(errcode.InternalServerError, fmt.Sprintf("anchor key %q was used for another digest", key))
		}
		if p.BlockNumber > 0 {
			return Anchor{TxHash: p.TxHash, BlockNumber: p.BlockNumber, ChainID: p.ChainID}, nil
		}
		chainID, err := a.checkChainID(ctx)
		if err != nil {
			return Anchor{}, err
		}
		if p.ChainID != chainID {
			return Anchor{}, errcode.New(errcode.BlockchainConfigInvalid,
				fmt.Sprintf("stored tx for %q was signed for chain %d, node is on chain %d", key, p.ChainID, chainID))
		}
		return a.settle(ctx, key, p, true)
	}
	p, err = a.sign(ctx, key, digest)
	if err != nil {
		return Anchor{}, err
	}
	return a.settle(ctx, key, p, false)
}

// checkChainID asks the node for its chain id once and compares it with the configured one.
func (a *Anchorer) checkChainID(ctx context.Context) (uint64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.chainID != 0 {
		return a.chainID, nil
	}
	id, err := a.ChainID(ctx)
	if err != nil {
		return 0, err
	}
	if a.s.chainID != 0 && id != a.s.chainID {
		return 0, errcode.New(errcode.BlockchainConfigInvalid,
			fmt.Sprintf("node is on chain %d, configured chain is %d", id, a.s.chainID))
	}
	a.chainID = id
	return id, nil
}

// sign reserves key's nonce, signs the anchor transaction and records it, returning what the store holds for key.
// If gap repair took the nonce between reserving and saving (this worker stalled past the repair grace), the key's
// reservation is gone and the next reservation is a fresh nonce: sign once more with that.
func (a *Anchorer) sign(ctx context.Context, key string, digest [32]byte) (Pending, error) {
	p, err := a.signOnce(ctx, key, digest)
	if errors.Is(err, ErrNotReserved) {
		p, err = a.signOnce(ctx, key, digest)
	}
	return p, err
}

func (a *Anchorer) signOnce(ctx context.Context, key string, digest [32]byte) (Pending, error) {
	chainID, err := a.checkChainID(ctx)
	if err != nil {
		return Pending{}, err
	}
	// Fees and the nonce floor are fetched before the reservation so that nothing slow sits between reserving a
	// nonce and saving the transaction that uses it.
	tip, feeCap, err := a.fees(ctx)
	if err != nil {
		return Pending{}, err
	}
	floor, err := a.client.PendingNonceAt(ctx, a.s.from)
	if err != nil {
		return Pending{}, rpcError("get pending nonce", err)
	}
	from := a.s.from.Hex()
	nonce, err := a.store.ReserveNonce(ctx, key, from, floor)
	if err != nil {
		return Pending{}, errcode.Wrap(errcode.InternalServerError, "reserve nonce", err)
	}
	to := a.s.to
	tx, err := types.SignNewTx(a.s.key, types.LatestSignerForChainID(new(big.Int).SetUint64(chainID)), &types.DynamicFeeTx{
		ChainID:   new(big.Int).SetUint64(chainID),
		Nonce:     nonce,
		GasTipCap: tip,
		GasFeeCap: feeCap,
		Gas:       a.s.gasLimit,
		To:        &to,
		Value:     new(big.Int),
		Data:      digest[:],
	})
	if err != nil {
		return Pending{}, errcode.Wrap(errcode.InternalServerError, "sign anchor tx", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return Pending{}, errcode.Wrap(errcode.InternalServerError, "encode anchor tx", err)
	}
	p, err := a.store.SaveSigned(ctx, key, Pending{
		From: from, Nonce: nonce, TxHash: tx.Hash().Hex(), RawTx: raw, Digest: digest, ChainID: chainID,
	})
	if err != nil {
		return Pending{}, errcode.Wrap(errcode.InternalServerError, "save anchor tx", err)
	}
	return p, nil
}

// fees returns an EIP-1559 tip and a fee cap that survives the base fee doubling, as wallets do.
func (a *Anchorer) fees(ctx context.Context) (tip, feeCap *big.Int, err error) {
	head, err := a.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, rpcError("get head block", err)
	}
	tip, err = a.client.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, nil, rpcError("suggest gas tip", err)
	}
	baseFee := head.BaseFee
	if baseFee == nil {
		baseFee = new(big.Int) // pre-London chain: the fee cap is the tip
	}
	feeCap = new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(2)), tip)
	return tip, feeCap, nil
}

// settle broadcasts p (again), waits for its receipt and checks it. When retry is set the receipt is looked up
// first, because the transaction may have been mined since the last attempt.
func (a *Anchorer) settle(ctx context.Context, key string, p Pending, retry bool) (Anchor, error) {
	hash := common.HexToHash(p.TxHash)
	if retry {
		r, err := a.client.TransactionReceipt(ctx, hash)
		switch {
		case err == nil:
			return a.finish(ctx, key, p, r)
		case !isNotFound(err):
			return Anchor{}, rpcError("get receipt", err)
		}
	}
	if err := a.broadcast(ctx, p.RawTx); err != nil {
		if !errors.Is(err, errNonceTaken) {
			return Anchor{}, err
		}
		// The nonce is taken: either this transaction was mined since the receipt check (its receipt shows up
		// once the node has indexed it), or another one with the same nonce was, and this one can never be mined.
		r, werr := a.waitReceipt(ctx, hash, p.Nonce, false) // the nonce is used: there is no gap to repair
		if werr != nil {
			if errcode.Of(werr) == errcode.BlockchainTxResultUnknown && ctx.Err() == nil {
				return Anchor{}, errcode.Wrap(errcode.BlockchainTxRejected, "anchor tx nonce was used by another tx", err)
			}
			return Anchor{}, werr
		}
		return a.finish(ctx, key, p, r)
	}
	r, err := a.waitReceipt(ctx, hash, p.Nonce, true)
	if err != nil {
		return Anchor{}, err
	}
	return a.finish(ctx, key, p, r)
}

// finish checks a receipt against what was sent and records the block.
func (a *Anchorer) finish(ctx context.Context, key string, p Pending, r *types.Receipt) (Anchor, error) {
	hash := common.HexToHash(p.TxHash)
	if r.TxHash != hash {
		return Anchor{}, errcode.New(errcode.BlockchainReceiptInvalid,
			fmt.Sprintf("receipt is for tx %s, expected %s", r.TxHash.Hex(), p.TxHash))
	}
	if r.BlockNumber == nil || r.BlockNumber.Sign() <= 0 || !r.BlockNumber.IsUint64() {
		return Anchor{}, errcode.New(errcode.BlockchainReceiptInvalid, "receipt has no block number")
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return Anchor{}, errcode.New(errcode.BlockchainTxReverted, fmt.Sprintf("anchor tx %s reverted in block %d", p.TxHash, r.BlockNumber))
	}
	head, err := a.client.HeaderByNumber(ctx, r.BlockNumber)
	if err != nil {
		if isNotFound(err) {
			return Anchor{}, errcode.New(errcode.BlockchainReceiptInvalid, fmt.Sprintf("receipt block %d is missing", r.BlockNumber))
		}
		return Anchor{}, rpcError("get receipt block", err)
	}
	if head.Hash() != r.BlockHash {
		return Anchor{}, errcode.New(errcode.BlockchainReceiptInvalid,
			fmt.Sprintf("receipt block %d hash %s is not the canonical %s", r.BlockNumber, r.BlockHash.Hex(), head.Hash().Hex()))
	}
	tx, pending, err := a.client.TransactionByHash(ctx, hash)
	if err != nil {
		if isNotFound(err) {
			return Anchor{}, errcode.New(errcode.BlockchainReceiptInvalid, "mined anchor tx is not found")
		}
		return Anchor{}, rpcError("get anchor tx", err)
	}
	if pending || !bytes.Equal(tx.Data(), p.Digest[:]) {
		return Anchor{}, errcode.New(errcode.BlockchainReceiptInvalid, "mined anchor tx does not carry the digest")
	}
	block := r.BlockNumber.Uint64()
	if err := a.store.MarkMined(ctx, key, block); err != nil {
		return Anchor{}, errcode.Wrap(errcode.InternalServerError, "record anchor block", err)
	}
	// Every lower nonce is mined too: record the blocks of those no waiter recorded (best effort).
	if a.repairMu.TryLock() {
		if a.recordMined(ctx) != nil {
			a.repairs.failed.Add(1)
		}
		a.repairMu.Unlock()
	}
	return Anchor{TxHash: p.TxHash, BlockNumber: block, ChainID: p.ChainID}, nil
}
