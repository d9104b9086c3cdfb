package e2e

import (
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/badged/badged/internal/chain/devchain"
)

// chainNodeEnv makes the e2e test binary run a dev chain node and nothing else ("DataDir|Addr"), so a cluster test
// can kill -9 the chain node as the separate process it is in production.
const chainNodeEnv = "BADGED_E2E_CHAIN_NODE"

// chainNodeBlockInterval is the node's block time: a second, as under `badged dev`, so a transaction waits in the
// pool long enough for a test to kill the node before it is mined.
const chainNodeBlockInterval = time.Second

// runChainNode serves the dev chain over its journal until the process is killed.
func runChainNode(spec string) {
	dir, addr, _ := strings.Cut(spec, "|")
	c, err := devchain.Start(devchain.Config{Addr: addr, DataDir: dir, BlockInterval: chainNodeBlockInterval})
	if err != nil {
		fmt.Fprintln(os.Stderr, "chain node:", err)
		os.Exit(1)
	}
	r := c.Replayed()
	fmt.Printf("chain node at %s: replayed %d blocks, %d pooled, %d mismatches\n", c.URL(), r.Blocks, r.Pooled, r.Differs)
	select {}
}

// startChainProcess starts the cluster's chain node as a process of its own over chainDir at chainAddr.
func (c *cluster) startChainProcess(tb testing.TB) {
	tb.Helper()
	c.chainAddr = freeAddr(tb)
	c.chainURL = "http://" + c.chainAddr
	key := devchain.DevKey(devchain.DefaultSeed)
	c.chainKey, c.chainSender = hex.EncodeToString(crypto.FromECDSA(key)), crypto.PubkeyToAddress(key.PublicKey)
	// geth's JSON-RPC handler answers an empty GET with 200: the node is up.
	c.ChainNode = newProc(tb, "chain", c.chainURL, []string{chainNodeEnv + "=" + c.chainDir + "|" + c.chainAddr})
	c.ChainNode.Bin = os.Args[0]
	c.ChainNode.Start(tb)
}
