package chain

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
	"github.com/stretchr/testify/require"
)

// reverterCode is runtime code that always reverts: PUSH1 0 PUSH1 0 REVERT.
var reverterCode = common.FromHex("0x60006000fd")

// reverterAddr holds reverterCode in the test genesis.
var reverterAddr = common.HexToAddress("0x00000000000000000000000000000000000000fd")

// testChain is go-ethereum's simulated backend served over HTTP JSON-RPC on a loopback port.
type testChain struct {
	sim    *simulated.Backend
	url    string
	key    *ecdsa.PrivateKey
	from   common.Address
	mu     sync.Mutex // Commit is called from the auto-commit loop and from tests
	closed bool
}

// mustTestChain starts a simulated chain with one funded key and the reverting contract, closed at cleanup.
func mustTestChain(tb testing.TB) *testChain {
	tb.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(tb, err)
	from := crypto.PubkeyToAddress(key.PublicKey)
	alloc := types.GenesisAlloc{
		from:         {Balance: new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether))},
		reverterAddr: {Code: reverterCode, Balance: new(big.Int)},
	}
	// The backend hides its node, so the bound port cannot be read back: pick a free port first and retry if another
	// process grabs it in between (node start failure panics inside NewBackend).
	for attempt := 0; ; attempt++ {
		port := freePort(tb)
		sim, err := newSim(alloc, port)
		if err != nil {
			if attempt < 5 {
				continue
			}
			require.NoError(tb, err)
		}
		c := &testChain{sim: sim, url: fmt.Sprintf("http://127.0.0.1:%d", port), key: key, from: from}
		tb.Cleanup(c.close)
		return c
	}
}

func newSim(alloc types.GenesisAlloc, port int) (sim *simulated.Backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("start simulated backend: %v", r)
		}
	}()
	return simulated.NewBackend(alloc, func(nc *node.Config, _ *ethconfig.Config) {
		nc.HTTPHost = "127.0.0.1"
		nc.HTTPPort = port
		nc.HTTPModules = []string{"eth", "net", "web3"}
		nc.HTTPVirtualHosts = []string{"*"}
	}), nil
}

func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(tb, l.Close())
	return port
}

func (c *testChain) commit() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.sim.Commit()
	}
}

func (c *testChain) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		_ = c.sim.Close()
	}
}

// autoCommit seals a block every interval until the test ends.
func (c *testChain) autoCommit(tb testing.TB, interval time.Duration) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				c.commit()
			}
		}
	}()
	// Registered after the chain's cleanup, so it runs first: the loop stops before the chain closes.
	tb.Cleanup(func() { close(stop); <-done })
}

func (c *testChain) keyHex() string { return hex.EncodeToString(crypto.FromECDSA(c.key)) }

// nonce returns how many transactions from addr are mined.
func (c *testChain) nonce(tb testing.TB, addr common.Address) uint64 {
	tb.Helper()
	n, err := c.sim.Client().NonceAt(context.Background(), addr, nil)
	require.NoError(tb, err)
	return n
}

func (c *testChain) config() Config {
	return Config{
		RPCURL:         c.url,
		PrivateKey:     c.keyHex(),
		ChainID:        1337,
		ReceiptTimeout: 20 * time.Second,
		PollInterval:   5 * time.Millisecond,
	}
}

func mustAnchorer(tb testing.TB, cfg Config, store TxStore) *Anchorer {
	tb.Helper()
	a, err := New(cfg, store)
	require.NoError(tb, err)
	tb.Cleanup(a.Close)
	return a
}

func digestOf(s string) [32]byte { return sha256Sum([]byte(s)) }

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
