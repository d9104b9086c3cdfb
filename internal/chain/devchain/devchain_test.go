package devchain_test

import (
	"context"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/chain/devchain"
)

func mustStart(tb testing.TB, cfg devchain.Config) *devchain.Chain {
	tb.Helper()
	c, err := devchain.Start(cfg)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// The dev chain serves JSON-RPC, seals pending transactions by itself, and keeps its blocks across a restart.
func TestDevChain_AnchorSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	cfg := devchain.Config{Addr: "127.0.0.1:0", DataDir: dir, Seed: "test seed", BlockInterval: 10 * time.Millisecond}
	c := mustStart(t, cfg)
	keyBytes := func(seed string) []byte { return crypto.FromECDSA(devchain.DevKey(seed)) }
	require.Equal(t, keyBytes("test seed"), keyBytes("test seed"), "deterministic")
	require.NotEqual(t, keyBytes("test seed"), keyBytes("other"))

	ctx := context.Background()
	digest := [32]byte{1, 2, 3}
	a, err := chain.New(chain.Config{
		RPCURL: c.URL(), PrivateKey: c.PrivateKeyHex(), ChainID: devchain.ChainID, PollInterval: 5 * time.Millisecond,
	}, chain.NewMemStore())
	require.NoError(t, err)
	anc, err := a.Anchor(ctx, "assertion-1", digest)
	require.NoError(t, err)
	a.Close()
	require.Equal(t, uint64(devchain.ChainID), anc.ChainID)
	require.GreaterOrEqual(t, c.BlockNumber(), anc.BlockNumber)
	addr := c.Address()
	require.NoError(t, c.Close())

	c2 := mustStart(t, cfg)
	require.Equal(t, addr, c2.Address(), "the dev key is derived from the seed")
	require.GreaterOrEqual(t, c2.BlockNumber(), anc.BlockNumber, "blocks are kept in DataDir")
	v, err := chain.NewVerifier(c2.URL())
	require.NoError(t, err)
	defer v.Close()
	got, err := v.Verify(ctx, anc.TxHash, digest)
	require.NoError(t, err)
	require.Equal(t, anc, got)
}

// Without DataDir nor BlockInterval the chain lives in memory and seals only on Commit.
func TestDevChain_ManualCommit(t *testing.T) {
	c := mustStart(t, devchain.Config{})
	a, err := chain.New(chain.Config{
		RPCURL: c.URL(), PrivateKey: c.PrivateKeyHex(), PollInterval: 5 * time.Millisecond, ReceiptTimeout: 5 * time.Second,
	}, chain.NewMemStore())
	require.NoError(t, err)
	defer a.Close()
	done := make(chan error, 1)
	go func() {
		_, err := a.Anchor(context.Background(), "k", [32]byte{9})
		done <- err
	}()
	require.Eventually(t, func() bool { return c.Pending() == 1 }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, uint64(0), c.BlockNumber())
	c.Commit()
	require.NoError(t, <-done)
	require.Equal(t, uint64(1), c.BlockNumber())
}

// A taken RPC port fails the start with the listener's own error, naming the address, before the journal in DataDir
// is opened: the usual owner of the port is another dev chain on the same DataDir, whose journal must stay as it is.
func TestDevChain_AddrInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	dir := t.TempDir()
	_, err = devchain.Start(devchain.Config{Addr: l.Addr().String(), DataDir: dir})
	require.ErrorIs(t, err, syscall.EADDRINUSE)
	require.EqualError(t, err, "listen tcp "+l.Addr().String()+": bind: address already in use")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "the journal was not opened")
}
