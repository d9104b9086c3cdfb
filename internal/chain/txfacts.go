package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/badged/badged/internal/errcode"
)

// TxFacts is what a node says about a mined transaction: what a receipt's holder compares its claims with.
type TxFacts struct {
	Hash        string
	ChainID     uint64 // the node's
	BlockNumber uint64
	Succeeded   bool
	From        string // recovered from the signature, not taken from the node's word
	To          string // empty for a contract creation
	Data        []byte
}

// Transaction fetches a mined transaction and its receipt. Errors as Verify: BLOCKCHAIN_RECEIPT_INVALID wrapping
// ErrMalformedTx, ErrTxNotFound or ErrTxPending; BLOCKCHAIN_RPC_FAILED when the node cannot be asked.
func (v *Verifier) Transaction(ctx context.Context, txHash string) (TxFacts, error) {
	hash, tx, err := v.minedTx(ctx, "look up", txHash)
	if err != nil {
		return TxFacts{}, err
	}
	r, err := v.receipt(ctx, "look up", hash)
	switch {
	case err != nil:
		return TxFacts{}, err
	case r.BlockNumber == nil || !r.BlockNumber.IsUint64():
		return TxFacts{}, errcode.New(errcode.BlockchainReceiptInvalid, "anchor receipt has no block number")
	}
	chainID, err := v.ChainID(ctx)
	if err != nil {
		return TxFacts{}, err
	}
	// The sender is recovered with the transaction's own chain id (EIP-155 replay protection): a signature made
	// for another chain recovers to another address.
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		return TxFacts{}, errcode.Wrap(errcode.BlockchainReceiptInvalid, "recover sender of "+hash.Hex(), err)
	}
	f := TxFacts{Hash: hash.Hex(), ChainID: chainID, BlockNumber: r.BlockNumber.Uint64(),
		Succeeded: r.Status == types.ReceiptStatusSuccessful, From: from.Hex(), Data: tx.Data()}
	if tx.To() != nil {
		f.To = tx.To().Hex()
	}
	return f, nil
}

// minedTx fetches the transaction txHash, which must be mined; verb ("verify", "look up") begins the errors'
// messages. Errors: BLOCKCHAIN_RECEIPT_INVALID wrapping ErrMalformedTx, ErrTxNotFound or ErrTxPending;
// BLOCKCHAIN_RPC_FAILED when the node cannot be asked.
func (v *Verifier) minedTx(ctx context.Context, verb, txHash string) (common.Hash, *types.Transaction, error) {
	raw, err := hexutil.Decode(txHash)
	if err != nil || len(raw) != common.HashLength {
		return common.Hash{}, nil, errcode.Wrap(errcode.BlockchainReceiptInvalid, fmt.Sprintf("%s %q", verb, txHash), ErrMalformedTx)
	}
	hash := common.BytesToHash(raw)
	tx, pending, err := v.client.TransactionByHash(ctx, hash)
	switch {
	case isNotFound(err):
		return hash, nil, errcode.Wrap(errcode.BlockchainReceiptInvalid, verb+" "+hash.Hex(), ErrTxNotFound)
	case err != nil:
		return hash, nil, rpcError("get anchor tx", err)
	case pending:
		return hash, nil, errcode.Wrap(errcode.BlockchainReceiptInvalid, verb+" "+hash.Hex(), ErrTxPending)
	}
	return hash, tx, nil
}

// receipt fetches the receipt of the mined transaction hash. Errors: BLOCKCHAIN_RECEIPT_INVALID wrapping
// ErrTxPending when the node has none yet; BLOCKCHAIN_RPC_FAILED when it cannot be asked.
func (v *Verifier) receipt(ctx context.Context, verb string, hash common.Hash) (*types.Receipt, error) {
	r, err := v.client.TransactionReceipt(ctx, hash)
	switch {
	case isNotFound(err):
		return nil, errcode.Wrap(errcode.BlockchainReceiptInvalid, verb+" "+hash.Hex()+": no receipt", ErrTxPending)
	case err != nil:
		return nil, rpcError("get anchor receipt", err)
	}
	return r, nil
}

// HeadBlock returns the number of the node's latest block.
func (v *Verifier) HeadBlock(ctx context.Context) (uint64, error) {
	n, err := v.client.BlockNumber(ctx)
	if err != nil {
		return 0, rpcError("get head block", err)
	}
	return n, nil
}

// SignedTxAddresses returns the sender and target of a stored signed raw transaction (chain_txs.raw_tx).
func SignedTxAddresses(rawTx []byte) (from, to string, err error) {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(rawTx); err != nil {
		return "", "", fmt.Errorf("decode stored transaction: %w", err)
	}
	sender, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), &tx)
	if err != nil {
		return "", "", fmt.Errorf("recover stored transaction's sender: %w", err)
	}
	if tx.To() != nil {
		to = tx.To().Hex()
	}
	return sender.Hex(), to, nil
}
