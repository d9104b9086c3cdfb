package chain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/badged/badged/internal/errcode"
)

// Reasons a Verify fails with BLOCKCHAIN_RECEIPT_INVALID; test them with errors.Is.
var (
	ErrTxNotFound   = errors.New("anchor tx not found")
	ErrTxPending    = errors.New("anchor tx not mined yet")
	ErrDataMismatch = errors.New("anchor tx data does not hold the digest")
	ErrMalformedTx  = errors.New("anchor tx hash is malformed")
)

// Verifier checks anchors on chain. It needs no key, so the API server can use one on its own.
type Verifier struct {
	client    *ethclient.Client
	transport *http.Transport // nil for ws(s); its idle connections are closed with the Verifier
}

// NewVerifier returns a Verifier for the JSON-RPC endpoint rpcURL. For http(s) it does no network I/O. An empty URL
// fails with BLOCKCHAIN_CONFIG_MISSING, a malformed one with BLOCKCHAIN_CONFIG_INVALID, a ws(s) endpoint that cannot
// be reached with BLOCKCHAIN_RPC_FAILED.
func NewVerifier(rpcURL string) (*Verifier, error) {
	if strings.TrimSpace(rpcURL) == "" {
		return nil, errcode.New(errcode.BlockchainConfigMissing, "chain rpc url is not configured")
	}
	u, err := url.Parse(rpcURL)
	if err != nil || u.Host == "" {
		return nil, errcode.New(errcode.BlockchainConfigInvalid, "chain rpc url is malformed")
	}
	v := &Verifier{}
	var opts []rpc.ClientOption
	if u.Scheme == "http" || u.Scheme == "https" {
		// An own transport, so Close can drop its keep-alive connections instead of leaving them to the server.
		v.transport = http.DefaultTransport.(*http.Transport).Clone()
		opts = append(opts, rpc.WithHTTPClient(&http.Client{Transport: v.transport}))
	}
	// Dialing http(s) opens no connection; ws(s) does, bounded here.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := rpc.DialOptions(ctx, rpcURL, opts...)
	if err != nil {
		return nil, errcode.Wrap(errcode.BlockchainRPCFailed, "dial chain rpc", err)
	}
	v.client = ethclient.NewClient(c)
	return v, nil
}

// Close releases the RPC connections.
func (v *Verifier) Close() {
	v.client.Close()
	if v.transport != nil {
		v.transport.CloseIdleConnections()
	}
}

// ChainID returns the chain id the node reports; BLOCKCHAIN_RPC_FAILED when it cannot be asked.
func (v *Verifier) ChainID(ctx context.Context) (uint64, error) {
	id, err := v.client.ChainID(ctx)
	if err != nil {
		return 0, rpcError("get chain id", err)
	}
	if !id.IsUint64() {
		return 0, errcode.New(errcode.BlockchainConfigInvalid, "node chain id does not fit 64 bits")
	}
	return id.Uint64(), nil
}

// Verify checks that the transaction txHash is mined, succeeded and carries digest as its data, and returns where.
//
// Errors: BLOCKCHAIN_RECEIPT_INVALID wrapping ErrMalformedTx, ErrTxNotFound, ErrTxPending or ErrDataMismatch;
// BLOCKCHAIN_TX_REVERTED; BLOCKCHAIN_RPC_FAILED when the node cannot be asked.
func (v *Verifier) Verify(ctx context.Context, txHash string, digest [32]byte) (Anchor, error) {
	return v.verifyData(ctx, txHash, digest)
}

// VerifyProof checks that digest is a leaf of the Merkle tree whose root the transaction txHash carries, with proof
// the path AnchorBatch returned for it. Errors as Verify.
func (v *Verifier) VerifyProof(ctx context.Context, txHash string, digest [32]byte, proof Proof) (Anchor, error) {
	return v.verifyData(ctx, txHash, proof.Root(digest))
}

// verifyData checks that txHash is a successful mined transaction whose data is want.
func (v *Verifier) verifyData(ctx context.Context, txHash string, want [32]byte) (Anchor, error) {
	hash, tx, err := v.minedTx(ctx, "verify", txHash)
	if err != nil {
		return Anchor{}, err
	}
	if !bytes.Equal(tx.Data(), want[:]) {
		return Anchor{}, errcode.Wrap(errcode.BlockchainReceiptInvalid, "verify "+hash.Hex(), ErrDataMismatch)
	}
	r, err := v.receipt(ctx, "verify", hash)
	switch {
	case err != nil:
		return Anchor{}, err
	case r.Status != types.ReceiptStatusSuccessful:
		return Anchor{}, errcode.New(errcode.BlockchainTxReverted, "anchor tx "+hash.Hex()+" reverted")
	case r.BlockNumber == nil || !r.BlockNumber.IsUint64() || r.BlockNumber.Sign() <= 0:
		return Anchor{}, errcode.New(errcode.BlockchainReceiptInvalid, "anchor receipt has no block number")
	}
	chainID, err := v.ChainID(ctx)
	if err != nil {
		return Anchor{}, err
	}
	// A transaction signed for another chain cannot be in this chain's blocks; checking catches a lying node.
	if id := tx.ChainId(); id != nil && id.Sign() > 0 && (!id.IsUint64() || id.Uint64() != chainID) {
		return Anchor{}, errcode.New(errcode.BlockchainReceiptInvalid, fmt.Sprintf("anchor tx is for chain %s, node is on %d", id, chainID))
	}
	return Anchor{TxHash: hash.Hex(), BlockNumber: r.BlockNumber.Uint64(), ChainID: chainID}, nil
}
