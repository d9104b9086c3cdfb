// Package devchain runs a local EVM chain in-process for `make run` and tests: go-ethereum's simulated beacon on a
// full node with HTTP JSON-RPC, a funded dev key derived from a seed, blocks sealed on demand, and optionally the
// chain kept in a data directory across restarts.
//
// It imports nothing of the module. Production builds leave it out (cmd/badged/build_test.go): only `badged dev`,
// tests and deploy/cluster import it.
package devchain

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
)

// ChainID is the chain id of every dev chain (go-ethereum's dev chain config).
const ChainID = 1337

// DefaultSeed derives the dev key when Config.Seed is empty.
const DefaultSeed = "badged dev chain"

// Config configures a dev chain.
type Config struct {
	// Addr is the host:port of the HTTP JSON-RPC server; port 0 picks a free one. Empty means 127.0.0.1:0.
	Addr string
	// DataDir keeps the chain across restarts, also across SIGKILL (see journal.go); empty keeps it in memory only.
	DataDir string
	// Seed derives the funded dev key (SHA-256 of the seed), so the key stays the same across restarts.
	Seed string
	// BlockInterval is how often pending transactions are sealed into a block; 0 seals only on Commit.
	BlockInterval time.Duration
	// Fund lists extra addresses funded in the genesis block (changing it changes the genesis: use a new DataDir).
	Fund []common.Address
}

// journalFile is the journal's name in DataDir.
const journalFile = "chain.journal"

// Chain is a running dev chain.
type Chain struct {
	stack  *node.Node
	eth    *eth.Ethereum
	beacon *catalyst.SimulatedBeacon
	key    *ecdsa.PrivateKey
	rpc    *rpcServer

	// gate orders sealing against RPC calls: a call holds it shared, a seal exclusively until its block is in the
	// journal, so no caller sees a block or acknowledgement the journal would not give back after a crash.
	gate     sync.RWMutex
	journal  *journal // nil without DataDir
	broken   error    // first journal failure; from then on the chain acknowledges nothing (under gate)
	replayed ReplayStats

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// DevKey returns the key derived from seed: the SHA-256 of the seed as a secp256k1 scalar.
func DevKey(seed string) *ecdsa.PrivateKey {
	d := sha256.Sum256([]byte(seed))
	key, err := crypto.ToECDSA(d[:])
	if err != nil {
		// A SHA-256 output is a valid scalar except with negligible probability; a fixed seed that hits it is a bug.
		panic(fmt.Sprintf("devchain: seed %q does not give a valid key: %v", seed, err))
	}
	return key
}

// fundedBalance is what each funded account starts with: 1e9 ether, plenty for any dev run.
var fundedBalance = new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(params.Ether))

// Start starts a dev chain as configured. With DataDir it first replays the journal kept there.
//
// The RPC address is bound before anything else, so that a taken port fails at once with the listener's own error
// ("listen tcp 127.0.0.1:8545: bind: address already in use"), and before the journal is opened: the usual owner
// of the port is another dev chain on the same DataDir, whose journal this one must not truncate or replay.
func Start(cfg Config) (_ *Chain, err error) {
	if cfg.Seed == "" {
		cfg.Seed = DefaultSeed
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			ln.Close()
		}
	}()
	key := DevKey(cfg.Seed)

	// The node itself keeps everything in memory and serves nothing: the journal is what persists, and rpc.go
	// serves JSON-RPC behind the gate.
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = ""
	nodeConf.P2P = p2p.Config{NoDiscovery: true, MaxPeers: 0, ListenAddr: ""}
	nodeConf.HTTPHost = ""
	nodeConf.WSHost = ""
	nodeConf.IPCPath = ""
	nodeConf.AuthPort = 0 // no engine API server: the beacon is in-process
	stack, err := node.New(&nodeConf)
	if err != nil {
		return nil, fmt.Errorf("create dev node: %w", err)
	}

	alloc := core.SystemContractAllocs()
	alloc[crypto.PubkeyToAddress(key.PublicKey)] = types.Account{Balance: fundedBalance}
	for _, a := range cfg.Fund {
		alloc[a] = types.Account{Balance: fundedBalance}
	}
	ethConf := ethconfig.Defaults
	ethConf.Genesis = &core.Genesis{Config: params.AllDevChainProtocolChanges, GasLimit: ethconfig.Defaults.Miner.GasCeil, Alloc: alloc}
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	backend, err := eth.New(stack, &ethConf)
	if err != nil {
		stack.Close()
		return nil, fmt.Errorf("create dev chain: %w", err)
	}
	if err := stack.Start(); err != nil {
		stack.Close()
		return nil, fmt.Errorf("start dev node: %w", err)
	}
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, backend)
	if err != nil {
		stack.Close()
		return nil, fmt.Errorf("start dev beacon: %w", err)
	}
	c := &Chain{stack: stack, eth: backend, beacon: beacon, key: key, stop: make(chan struct{}), done: make(chan struct{})}
	if cfg.DataDir != "" {
		if err := c.openJournal(cfg.DataDir); err != nil {
			stack.Close()
			return nil, err
		}
	}
	if c.rpc, err = c.serve(ln); err != nil {
		c.closeParts()
		return nil, err
	}
	if cfg.BlockInterval > 0 {
		go c.sealLoop(cfg.BlockInterval)
	} else {
		close(c.done)
	}
	return c, nil
}

// sealLoop seals a block whenever transactions are pending, checking every interval. Empty blocks are not made, so
// block timestamps do not run ahead of the clock (each block needs a later second than its parent).
func (c *Chain) sealLoop(interval time.Duration) {
	defer close(c.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			// Sync waits for the pool to drop what the last block mined, so Stats does not count it again.
			_ = c.eth.TxPool().Sync()
			if pending, _ := c.eth.TxPool().Stats(); pending > 0 {
				c.Commit()
			}
		}
	}
}

// Commit seals the pending transactions into a new block and returns its hash. With DataDir the block is in the
// journal before any RPC caller can see it.
func (c *Chain) Commit() common.Hash {
	c.gate.Lock()
	defer c.gate.Unlock()
	before := c.BlockNumber()
	hash := c.beacon.Commit()
	if c.journal != nil && c.broken == nil && c.BlockNumber() > before {
		c.broken = c.logBlock(hash)
	}
	return hash
}

// Pending returns how many executable transactions wait in the pool.
func (c *Chain) Pending() int {
	n, _ := c.eth.TxPool().Stats()
	return n
}

// DropPending empties the transaction pool, as a node that restarted or evicted them would.
func (c *Chain) DropPending() { c.eth.TxPool().Clear() }

// URL returns the HTTP JSON-RPC endpoint, with the port actually bound.
func (c *Chain) URL() string { return c.rpc.url }

// PrivateKeyHex returns the funded dev key as 64 hex digits (no 0x), the form chain.Config.PrivateKey takes.
func (c *Chain) PrivateKeyHex() string { return hex.EncodeToString(crypto.FromECDSA(c.key)) }

// Address returns the funded dev address.
func (c *Chain) Address() common.Address { return crypto.PubkeyToAddress(c.key.PublicKey) }

// BlockNumber returns the current head block number.
func (c *Chain) BlockNumber() uint64 { return c.eth.BlockChain().CurrentBlock().Number.Uint64() }

// Close stops sealing and serving and shuts the node down. Everything acknowledged is already in the journal.
func (c *Chain) Close() error {
	var err error
	c.once.Do(func() {
		close(c.stop)
		<-c.done
		err = errors.Join(c.rpc.close(), c.closeParts())
	})
	return err
}

func (c *Chain) closeParts() error {
	err := errors.Join(c.beacon.Stop(), c.stack.Close())
	if c.journal != nil {
		err = errors.Join(err, c.journal.close())
	}
	return err
}
