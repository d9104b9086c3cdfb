package devchain_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/chain/devchain"
)

// childEnv makes the test binary run a dev chain (DataDir and Addr from the variable) until it is killed.
const childEnv = "DEVCHAIN_TEST_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		dir, addr, _ := strings.Cut(spec, "|")
		c, err := devchain.Start(devchain.Config{Addr: addr, DataDir: dir, BlockInterval: 20 * time.Millisecond})
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Println("URL", c.URL(), c.Replayed().Blocks, c.Replayed().Pooled, c.Replayed().Differs)
		select {} // until SIGKILL
	}
	os.Exit(m.Run())
}

type child struct {
	cmd                     *exec.Cmd
	url                     string
	blocks, pooled, differs int
}

func startChild(t *testing.T, dir, addr string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir+"|"+addr)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	ch := &child{cmd: cmd}
	_, err = fmt.Sscanf(line, "URL %s %d %d %d", &ch.url, &ch.blocks, &ch.pooled, &ch.differs)
	require.NoError(t, err, line)
	return ch
}

func (ch *child) kill(t *testing.T) {
	require.NoError(t, ch.cmd.Process.Kill()) // SIGKILL
	_ = ch.cmd.Wait()
}

// A dev chain killed with SIGKILL while transactions arrive and blocks are sealed comes back with every block it
// served (same numbers, same transactions) and every transaction it acknowledged, mined or still pooled.
func TestDevChain_SurvivesSIGKILL(t *testing.T) {
	dir := t.TempDir()
	first := startChild(t, dir, "127.0.0.1:0")
	addr := strings.TrimPrefix(first.url, "http://")
	ctx := context.Background()
	key := devchain.DevKey(devchain.DefaultSeed)
	signer := types.LatestSignerForChainID(big.NewInt(devchain.ChainID))
	to := common.Address{1}

	// Send transactions one after another until the kill; remember which the node acknowledged and which
	// receipts (blocks) it showed.
	client, err := ethclient.Dial(first.url)
	require.NoError(t, err)
	var (
		mu    sync.Mutex
		acked []common.Hash
		seen  = map[common.Hash]uint64{}
	)
	stop := make(chan struct{})
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for nonce := uint64(0); ; nonce++ {
			select {
			case <-stop:
				return
			default:
			}
			tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: big.NewInt(devchain.ChainID), Nonce: nonce,
				GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e11), Gas: 21000, To: &to, Value: new(big.Int)})
			if client.SendTransaction(ctx, tx) != nil {
				return // the node is gone
			}
			mu.Lock()
			acked = append(acked, tx.Hash())
			mu.Unlock()
			if nonce%5 == 0 {
				if r, err := client.TransactionReceipt(ctx, acked[max(0, len(acked)-8)]); err == nil {
					mu.Lock()
					seen[r.TxHash] = r.BlockNumber.Uint64()
					mu.Unlock()
				}
			}
		}
	}()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) >= 20 }, 30*time.Second, 5*time.Millisecond)
	first.kill(t)
	close(stop)
	<-sent
	client.Close()

	second := startChild(t, dir, addr)
	require.Equal(t, first.url, second.url)
	require.Zero(t, second.differs, "replayed blocks match the journal")
	require.Positive(t, second.blocks)
	client, err = ethclient.Dial(second.url)
	require.NoError(t, err)
	defer client.Close()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("acknowledged %d txs, saw %d receipts; replayed %d blocks, %d txs back in the pool", len(acked), len(seen), second.blocks, second.pooled)
	for hash, block := range seen {
		r, err := client.TransactionReceipt(ctx, hash)
		require.NoError(t, err, "tx %s was mined before the kill", hash.Hex())
		require.Equal(t, block, r.BlockNumber.Uint64(), "tx %s stays in its block", hash.Hex())
	}
	// Every acknowledged transaction is mined after the restart: the pool kept the ones not mined before.
	last := acked[len(acked)-1]
	require.Eventually(t, func() bool { _, err := client.TransactionReceipt(ctx, last); return err == nil }, 30*time.Second, 20*time.Millisecond)
	for _, h := range acked {
		_, err := client.TransactionReceipt(ctx, h)
		require.NoError(t, err, "acknowledged tx %s", h.Hex())
	}
	nonce, err := client.NonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey), nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, nonce, uint64(len(acked)))
}

// Anchoring while the node is killed with SIGKILL and restarted on the same DataDir: every anchor, retried with its
// key as the pipeline's step retries would, is mined exactly once.
func TestDevChain_AnchorsMineOnceAcrossSIGKILL(t *testing.T) {
	dir := t.TempDir()
	node := startChild(t, dir, "127.0.0.1:0")
	addr := strings.TrimPrefix(node.url, "http://")
	store := chain.NewMemStore()
	a, err := chain.New(chain.Config{RPCURL: node.url, PrivateKey: hex.EncodeToString(crypto.FromECDSA(devchain.DevKey(devchain.DefaultSeed))),
		ChainID: devchain.ChainID, PollInterval: 10 * time.Millisecond, ReceiptTimeout: 3 * time.Second}, store)
	require.NoError(t, err)
	defer a.Close()
	ctx := context.Background()

	const keys, workers = 40, 4
	var mined atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, keys)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < keys; i += workers {
				key := fmt.Sprint("anchor/", i)
				deadline := time.Now().Add(60 * time.Second)
				for {
					_, err := a.Anchor(ctx, key, sha256.Sum256([]byte(key)))
					if err == nil {
						mined.Add(1)
						break
					}
					if time.Now().After(deadline) {
						errs <- fmt.Errorf("%s: %w", key, err)
						break
					}
					time.Sleep(50 * time.Millisecond) // the step's retry interval
				}
			}
		}()
	}
	require.Eventually(t, func() bool { return mined.Load() >= keys/4 }, 30*time.Second, 5*time.Millisecond)
	node.kill(t)
	node = startChild(t, dir, addr)
	require.Zero(t, node.differs)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	client, err := ethclient.Dial(node.url)
	require.NoError(t, err)
	defer client.Close()
	from := crypto.PubkeyToAddress(devchain.DevKey(devchain.DefaultSeed).PublicKey)
	nonce, err := client.NonceAt(ctx, from, nil)
	require.NoError(t, err)
	require.EqualValues(t, keys, nonce, "one transaction per key, no filler, no duplicate")
	head, err := client.BlockNumber(ctx)
	require.NoError(t, err)
	seen := map[[32]byte]int{}
	for n := uint64(1); n <= head; n++ {
		b, err := client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		require.NoError(t, err)
		for _, tx := range b.Transactions() {
			seen[[32]byte(tx.Data())]++
		}
	}
	for i := range keys {
		key := fmt.Sprint("anchor/", i)
		require.Equal(t, 1, seen[sha256.Sum256([]byte(key))], "%s is on chain exactly once", key)
		p, found, err := store.Load(ctx, key)
		require.NoError(t, err)
		require.True(t, found)
		r, err := client.TransactionReceipt(ctx, common.HexToHash(p.TxHash))
		require.NoError(t, err)
		require.Equal(t, r.BlockNumber.Uint64(), p.BlockNumber, "%s: the recorded block is the chain's", key)
	}
	t.Logf("%d anchors, killed after %d were mined; replayed %d blocks, %d txs back in the pool; repairs %+v",
		keys, keys/4, node.blocks, node.pooled, a.Repairs())
}
