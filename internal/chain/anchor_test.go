package chain

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
)

func TestAnchor_MinesDigestAndVerifies(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	store := NewMemStore()
	a := mustAnchorer(t, c.config(), store)
	ctx := context.Background()
	digest := digestOf("credential 1")

	got, err := a.Anchor(ctx, "assertion-1", digest)
	require.NoError(t, err)
	require.Equal(t, uint64(1337), got.ChainID)
	require.Positive(t, got.BlockNumber)
	require.Len(t, got.TxHash, 66)

	tx, pending, err := c.sim.Client().TransactionByHash(ctx, common.HexToHash(got.TxHash))
	require.NoError(t, err)
	require.False(t, pending)
	require.Equal(t, digest[:], tx.Data())
	require.Equal(t, c.from, *tx.To(), "default target is the sender itself")

	v, err := a.Verify(ctx, got.TxHash, digest)
	require.NoError(t, err)
	require.Equal(t, got, v)

	// The same key again: the stored result, no second transaction.
	again, err := a.Anchor(ctx, "assertion-1", digest)
	require.NoError(t, err)
	require.Equal(t, got, again)
	require.Equal(t, uint64(1), c.nonce(t, c.from))

	p, found, err := store.Load(ctx, "assertion-1")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, got.BlockNumber, p.BlockNumber)
}

func TestAnchor_ConfiguredTarget(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	cfg := c.config()
	target := common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	cfg.To = target.Hex()
	a := mustAnchorer(t, cfg, NewMemStore())

	got, err := a.Anchor(context.Background(), "k", digestOf("x"))
	require.NoError(t, err)
	tx, _, err := c.sim.Client().TransactionByHash(context.Background(), common.HexToHash(got.TxHash))
	require.NoError(t, err)
	require.Equal(t, target, *tx.To())
}

func TestAnchor_ResultUnknownThenFoundOnRetry(t *testing.T) {
	c := mustTestChain(t) // no auto-commit: nothing is mined until the test says so
	cfg := c.config()
	cfg.ReceiptTimeout = 200 * time.Millisecond
	store := NewMemStore()
	a := mustAnchorer(t, cfg, store)
	ctx := context.Background()
	digest := digestOf("late")

	_, err := a.Anchor(ctx, "assertion-late", digest)
	require.Equal(t, errcode.BlockchainTxResultUnknown, errcode.Of(err), "%v", err)
	p, found, err := store.Load(ctx, "assertion-late")
	require.NoError(t, err)
	require.True(t, found, "the signed tx is recorded before broadcast")

	c.commit()
	got, err := a.Anchor(ctx, "assertion-late", digest)
	require.NoError(t, err)
	require.Equal(t, p.TxHash, got.TxHash, "the retry finds the same tx")
	require.Equal(t, uint64(1), c.nonce(t, c.from), "exactly one tx on chain")
}

func TestAnchor_RetryRebroadcastsDroppedTx(t *testing.T) {
	c := mustTestChain(t)
	cfg := c.config()
	cfg.ReceiptTimeout = 200 * time.Millisecond
	store := NewMemStore()
	a := mustAnchorer(t, cfg, store)
	ctx := context.Background()
	digest := digestOf("dropped")

	_, err := a.Anchor(ctx, "assertion-dropped", digest)
	require.Equal(t, errcode.BlockchainTxResultUnknown, errcode.Of(err), "%v", err)
	p, _, err := store.Load(ctx, "assertion-dropped")
	require.NoError(t, err)

	// The node forgets the transaction (restart, eviction); the retry must send the very same bytes.
	c.sim.Rollback()
	c.commit()
	require.Equal(t, uint64(0), c.nonce(t, c.from))

	c.autoCommit(t, 5*time.Millisecond)
	a.s.receiptTimeout = 20 * time.Second
	got, err := a.Anchor(ctx, "assertion-dropped", digest)
	require.NoError(t, err)
	require.Equal(t, p.TxHash, got.TxHash)
	require.Equal(t, uint64(1), c.nonce(t, c.from))
}

func TestAnchor_ErrorClasses(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	stranger, err := crypto.GenerateKey()
	require.NoError(t, err)

	tests := []struct {
		name string
		cfg  func(Config) Config
		want errcode.Code
	}{
		{"ok", func(cfg Config) Config { return cfg }, ""},
		{"rpc down", func(cfg Config) Config {
			cfg.RPCURL = fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
			return cfg
		}, errcode.BlockchainRPCFailed},
		{"unfunded key rejected", func(cfg Config) Config {
			cfg.PrivateKey = fmt.Sprintf("0x%x", crypto.FromECDSA(stranger))
			return cfg
		}, errcode.BlockchainTxRejected},
		{"gas below intrinsic rejected", func(cfg Config) Config {
			cfg.GasLimit = 21_000
			return cfg
		}, errcode.BlockchainTxRejected},
		{"target reverts", func(cfg Config) Config {
			cfg.To = reverterAddr.Hex()
			return cfg
		}, errcode.BlockchainTxReverted},
		{"chain id mismatch", func(cfg Config) Config {
			cfg.ChainID = 1
			return cfg
		}, errcode.BlockchainConfigInvalid},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustAnchorer(t, tt.cfg(c.config()), NewMemStore())
			_, err := a.Anchor(context.Background(), fmt.Sprintf("key-%d", i), digestOf(tt.name))
			require.Equal(t, tt.want, errcode.Of(err), "%v", err)
		})
	}
}

func TestAnchor_RPCDownAfterServerClosed(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	a := mustAnchorer(t, c.config(), NewMemStore())
	ctx := context.Background()
	_, err := a.Anchor(ctx, "before", digestOf("before"))
	require.NoError(t, err)

	c.close()
	_, err = a.Anchor(ctx, "after", digestOf("after"))
	require.Equal(t, errcode.BlockchainRPCFailed, errcode.Of(err), "%v", err)
	_, err = a.Verify(ctx, "0x"+fmt.Sprintf("%064x", 1), digestOf("after"))
	require.Equal(t, errcode.BlockchainRPCFailed, errcode.Of(err), "%v", err)
}

func TestNew_Config(t *testing.T) {
	const key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	tests := []struct {
		name string
		cfg  Config
		want errcode.Code
	}{
		{"ok", Config{RPCURL: "http://127.0.0.1:8545", PrivateKey: key}, ""},
		{"ok 0x key and target", Config{RPCURL: "https://rpc.example", PrivateKey: "0x" + key, To: "0x000000000000000000000000000000000000dEaD"}, ""},
		{"missing url", Config{PrivateKey: key}, errcode.BlockchainConfigMissing},
		{"missing key", Config{RPCURL: "http://127.0.0.1:8545"}, errcode.BlockchainConfigMissing},
		{"blank key", Config{RPCURL: "http://127.0.0.1:8545", PrivateKey: "  "}, errcode.BlockchainConfigMissing},
		{"short key", Config{RPCURL: "http://127.0.0.1:8545", PrivateKey: "abcd"}, errcode.BlockchainConfigInvalid},
		{"non-hex key", Config{RPCURL: "http://127.0.0.1:8545", PrivateKey: "zz" + key[2:]}, errcode.BlockchainConfigInvalid},
		{"zero key", Config{RPCURL: "http://127.0.0.1:8545", PrivateKey: fmt.Sprintf("%064x", 0)}, errcode.BlockchainConfigInvalid},
		{"bad target", Config{RPCURL: "http://127.0.0.1:8545", PrivateKey: key, To: "0x1234"}, errcode.BlockchainConfigInvalid},
		{"bad scheme", Config{RPCURL: "ftp://127.0.0.1:8545", PrivateKey: key}, errcode.BlockchainConfigInvalid},
		{"no host", Config{RPCURL: "http://", PrivateKey: key}, errcode.BlockchainConfigInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(tt.cfg, NewMemStore())
			require.Equal(t, tt.want, errcode.Of(err), "%v", err)
			if err == nil {
				a.Close()
			} else {
				require.NotContains(t, err.Error(), key, "the key must never reach an error text")
			}
		})
	}
}

func TestAnchor_KeyReusedWithOtherDigest(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	a := mustAnchorer(t, c.config(), NewMemStore())
	ctx := context.Background()
	_, err := a.Anchor(ctx, "k", digestOf("one"))
	require.NoError(t, err)
	_, err = a.Anchor(ctx, "k", digestOf("two"))
	require.Equal(t, errcode.InternalServerError, errcode.Of(err), "%v", err)
	require.Equal(t, uint64(1), c.nonce(t, c.from))
}

// Two workers share one sender key and one store: 50 keys give 50 distinct nonces and 50 mined transactions.
func TestAnchor_ConcurrentKeysTwoWorkers(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	store := NewMemStore()
	workers := []*Anchorer{mustAnchorer(t, c.config(), store), mustAnchorer(t, c.config(), store)}
	ctx := context.Background()

	const n = 50
	results := make([]Anchor, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = workers[i%2].Anchor(ctx, fmt.Sprintf("assertion-%d", i), digestOf(fmt.Sprint(i)))
		})
	}
	wg.Wait()

	nonces := map[uint64]bool{}
	hashes := map[string]bool{}
	for i := range n {
		require.NoError(t, errs[i])
		p, found, err := store.Load(ctx, fmt.Sprintf("assertion-%d", i))
		require.NoError(t, err)
		require.True(t, found)
		nonces[p.Nonce] = true
		hashes[results[i].TxHash] = true
		require.Positive(t, results[i].BlockNumber)
	}
	require.Len(t, nonces, n)
	require.Len(t, hashes, n)
	require.Equal(t, uint64(n), c.nonce(t, c.from))
}

// Two workers racing on the same key send one transaction between them.
func TestAnchor_SameKeyRace(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	store := NewMemStore()
	ctx := context.Background()
	const n = 8
	results := make([]Anchor, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		a := mustAnchorer(t, c.config(), store)
		wg.Go(func() { results[i], errs[i] = a.Anchor(ctx, "same", digestOf("same")) })
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		require.Equal(t, results[0], results[i])
	}
	require.Equal(t, uint64(1), c.nonce(t, c.from))
}
