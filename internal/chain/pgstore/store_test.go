package pgstore

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/internal/errcode"
)

const sender = "0x00000000000000000000000000000000000000A1"

func TestChainStoreReserveNonce(t *testing.T) {
	ctx := context.Background()
	s := Store{DB: dbtest.New(t)}

	n, err := s.ReserveNonce(ctx, "k1", sender, 5)
	require.NoError(t, err)
	require.EqualValues(t, 5, n, "the node's pending nonce is the floor")
	again, err := s.ReserveNonce(ctx, "k1", sender, 9)
	require.NoError(t, err)
	require.Equal(t, n, again, "idempotent per key, whatever the floor")
	n2, err := s.ReserveNonce(ctx, "k2", sender, 0)
	require.NoError(t, err)
	require.EqualValues(t, 6, n2, "next nonce of the sender")
	n3, err := s.ReserveNonce(ctx, "k3", "0xOTHER", 0)
	require.NoError(t, err)
	require.EqualValues(t, 0, n3, "nonce spaces are per sender")

	_, found, err := s.Load(ctx, "k1")
	require.NoError(t, err)
	require.False(t, found, "a reservation alone is not a saved transaction")
}

func TestChainStoreReserveNonceRace(t *testing.T) {
	ctx := context.Background()
	s := Store{DB: dbtest.New(t)}

	t.Run("ten keys", func(t *testing.T) {
		got := race(t, 10, func(i int) (uint64, error) { return s.ReserveNonce(ctx, fmt.Sprintf("key-%d", i), sender, 0) })
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		for i, n := range got {
			require.EqualValues(t, i, n, "nonces must be distinct and gap-free: %v", got)
		}
	})
	t.Run("one key", func(t *testing.T) {
		got := race(t, 10, func(int) (uint64, error) { return s.ReserveNonce(ctx, "shared", sender, 0) })
		for _, n := range got {
			require.Equal(t, got[0], n, "racing calls of one key return the winner's nonce: %v", got)
		}
		require.EqualValues(t, 10, got[0])
		next, err := s.ReserveNonce(ctx, "after", sender, 0)
		require.NoError(t, err)
		require.EqualValues(t, 11, next, "the losers' reservations left no gap")
	})
}

func race(t *testing.T, n int, fn func(i int) (uint64, error)) []uint64 {
	t.Helper()
	out := make([]uint64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i], errs[i] = fn(i)
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	return out
}

func TestChainStoreSaveSignedAndMarkMined(t *testing.T) {
	ctx := context.Background()
	s := Store{DB: dbtest.New(t)}

	_, err := s.SaveSigned(ctx, "nobody", chain.Pending{From: sender, TxHash: "0x01", RawTx: []byte{1}})
	require.ErrorIs(t, err, chain.ErrNotReserved, "saving without a reservation")

	nonce, err := s.ReserveNonce(ctx, "k", sender, 3)
	require.NoError(t, err)
	_, err = s.SaveSigned(ctx, "k", chain.Pending{From: sender, Nonce: nonce + 1, TxHash: "0x01", RawTx: []byte{1}})
	require.ErrorIs(t, err, chain.ErrNotReserved, "saving for another nonce than the reserved one")
	first := chain.Pending{From: sender, Nonce: nonce, TxHash: "0xaaaa", RawTx: []byte{0xa}, Digest: [32]byte{1}, ChainID: 31337}
	second := chain.Pending{From: sender, Nonce: nonce, TxHash: "0xbbbb", RawTx: []byte{0xb}, Digest: [32]byte{2}, ChainID: 31337}

	got, err := s.SaveSigned(ctx, "k", first)
	require.NoError(t, err)
	require.Equal(t, first, got)
	got, err = s.SaveSigned(ctx, "k", second)
	require.NoError(t, err)
	require.Equal(t, first, got, "first writer wins")
	loaded, found, err := s.Load(ctx, "k")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, first, loaded)

	require.ErrorIs(t, s.MarkMined(ctx, "unknown", 7), chain.ErrUnknownKey)
	_, err = s.ReserveNonce(ctx, "reserved-only", sender, 0)
	require.NoError(t, err)
	require.ErrorIs(t, s.MarkMined(ctx, "reserved-only", 7), chain.ErrUnknownKey, "reserved but never signed")

	require.NoError(t, s.MarkMined(ctx, "k", 42))
	require.NoError(t, s.MarkMined(ctx, "k", 42), "setting the same block again is a no-op")
	loaded, _, err = s.Load(ctx, "k")
	require.NoError(t, err)
	require.EqualValues(t, 42, loaded.BlockNumber)
}

func TestChainStoreUnsettledAndReplaceAbandoned(t *testing.T) {
	ctx := context.Background()
	s := Store{DB: dbtest.New(t)}
	for i := range 5 {
		_, err := s.ReserveNonce(ctx, fmt.Sprintf("k%d", i), sender, 0)
		require.NoError(t, err)
	}
	_, err := s.ReserveNonce(ctx, "other", "0xOTHER", 0)
	require.NoError(t, err)
	signed := chain.Pending{From: sender, Nonce: 1, TxHash: "0x11", RawTx: []byte{0x11}, Digest: [32]byte{1}, ChainID: 1337}
	_, err = s.SaveSigned(ctx, "k1", signed)
	require.NoError(t, err)
	_, err = s.SaveSigned(ctx, "k2", chain.Pending{From: sender, Nonce: 2, TxHash: "0x22", RawTx: []byte{0x22}})
	require.NoError(t, err)
	require.NoError(t, s.MarkMined(ctx, "k2", 9))
	// Age is read with the database clock: an hour-old reservation reads as an hour old.
	_, err = s.DB.Pool.Exec(ctx, "UPDATE chain_txs SET created_at = now() - interval '1 hour' WHERE anchor_key = 'k3'")
	require.NoError(t, err)

	rs, err := s.Unsettled(ctx, sender, 1, 4)
	require.NoError(t, err)
	require.Len(t, rs, 2, "k2 is mined, k0 and k4 are outside [1, 4): %+v", rs)
	require.Equal(t, "k1", rs[0].Key)
	require.True(t, rs[0].Signed)
	require.Equal(t, signed, rs[0].Tx)
	require.Less(t, rs[0].Age, time.Minute)
	require.Equal(t, "k3", rs[1].Key)
	require.False(t, rs[1].Signed)
	require.InDelta(t, time.Hour.Seconds(), rs[1].Age.Seconds(), 60)

	_, ok, err := s.ReplaceAbandoned(ctx, "k1", chain.Pending{From: sender, Nonce: 1, TxHash: "0xf1", RawTx: []byte{0xf1}})
	require.NoError(t, err)
	require.False(t, ok, "a signed key keeps its nonce")
	_, ok, err = s.ReplaceAbandoned(ctx, "k3", chain.Pending{From: sender, Nonce: 0, TxHash: "0xf0", RawTx: []byte{0xf0}})
	require.NoError(t, err)
	require.False(t, ok, "k3 does not hold nonce 0")

	// Racing repairs of one nonce, each on its own connection: one filler is stored and every repair gets it.
	fillers := make([]chain.Pending, 8)
	oks := make([]bool, len(fillers))
	errs := make([]error, len(fillers))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range fillers {
		wg.Go(func() {
			<-start
			f := chain.Pending{From: sender, Nonce: 3, TxHash: fmt.Sprintf("0xf3%02d", i), RawTx: []byte{byte(i)}, ChainID: 1337}
			fillers[i], oks[i], errs[i] = s.ReplaceAbandoned(ctx, "k3", f)
		})
	}
	close(start)
	wg.Wait()
	for i, f := range fillers {
		require.NoError(t, errs[i])
		require.True(t, oks[i])
		require.Equal(t, fillers[0], f)
	}
	stored, found, err := s.Load(ctx, chain.FillerKey(sender, 3))
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, fillers[0], stored)
	rs, err = s.Unsettled(ctx, sender, 3, 4)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Equal(t, chain.FillerKey(sender, 3), rs[0].Key, "the filler holds the nonce now")

	// The released key: its late save is refused, its retry reserves a fresh nonce.
	_, err = s.SaveSigned(ctx, "k3", chain.Pending{From: sender, Nonce: 3, TxHash: "0x33", RawTx: []byte{0x33}})
	require.ErrorIs(t, err, chain.ErrNotReserved)
	n, err := s.ReserveNonce(ctx, "k3", sender, 0)
	require.NoError(t, err)
	require.EqualValues(t, 5, n)
	_, err = s.SaveSigned(ctx, "k3", chain.Pending{From: sender, Nonce: 3, TxHash: "0x33", RawTx: []byte{0x33}})
	require.ErrorIs(t, err, chain.ErrNotReserved, "the old nonce is refused on the new reservation too")
}

// gapFixture is a dev chain and a Postgres Store, fresh per test, and a way to start workers on them.
type gapFixture struct {
	chain *devchain.Chain
	store Store
}

func newGapFixture(t *testing.T, blockInterval time.Duration) gapFixture {
	t.Helper()
	c, err := devchain.Start(devchain.Config{BlockInterval: blockInterval})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return gapFixture{chain: c, store: Store{DB: dbtest.New(t)}}
}

// worker starts an Anchorer on the fixture's chain, with store (the fixture's unless overridden).
func (f gapFixture) worker(t *testing.T, store chain.TxStore, receiptTimeout, grace time.Duration) *chain.Anchorer {
	t.Helper()
	a, err := chain.New(chain.Config{RPCURL: f.chain.URL(), PrivateKey: f.chain.PrivateKeyHex(), ChainID: devchain.ChainID,
		ReceiptTimeout: receiptTimeout, PollInterval: 5 * time.Millisecond, RepairGrace: grace}, store)
	require.NoError(t, err)
	t.Cleanup(a.Close)
	return a
}

func (f gapFixture) nonceOf(t *testing.T, key string) uint64 {
	t.Helper()
	p, found, err := f.store.Load(context.Background(), key)
	require.NoError(t, err)
	require.True(t, found, key)
	return p.Nonce
}

// diesAfterSave is a worker that dies right after SaveSigned: the transaction is stored, never broadcast.
type diesAfterSave struct{ Store }

func (s diesAfterSave) SaveSigned(ctx context.Context, key string, p chain.Pending) (chain.Pending, error) {
	if _, err := s.Store.SaveSigned(ctx, key, p); err != nil {
		return chain.Pending{}, err
	}
	return chain.Pending{}, errors.New("worker died")
}

// The anchorer's gap repair on Postgres: the four ways a nonce below ours never reaches the node.
func TestChainStoreGapRepair(t *testing.T) {
	ctx := context.Background()
	digest := func(s string) [32]byte { return sha256.Sum256([]byte(s)) }

	t.Run("abandoned reservation is filled", func(t *testing.T) {
		f := newGapFixture(t, 5*time.Millisecond)
		a := f.worker(t, f.store, 10*time.Second, 50*time.Millisecond)
		_, err := f.store.ReserveNonce(ctx, "abandoned", a.From(), 0)
		require.NoError(t, err)
		time.Sleep(100 * time.Millisecond)

		_, err = a.Anchor(ctx, "next", digest("next"))
		require.NoError(t, err)
		require.EqualValues(t, 1, f.nonceOf(t, "next"))
		require.EqualValues(t, 0, f.nonceOf(t, chain.FillerKey(a.From(), 0)))
		require.Equal(t, chain.RepairStats{Filled: 1}, a.Repairs())

		_, err = a.Anchor(ctx, "abandoned", digest("abandoned"))
		require.NoError(t, err, "the re-driven key is mined with a fresh nonce")
		require.EqualValues(t, 2, f.nonceOf(t, "abandoned"))
	})

	t.Run("signed but never broadcast is re-sent", func(t *testing.T) {
		f := newGapFixture(t, 5*time.Millisecond)
		_, err := f.worker(t, diesAfterSave{f.store}, 10*time.Second, 0).Anchor(ctx, "crashed", digest("crashed"))
		require.Equal(t, errcode.InternalServerError, errcode.Of(err), "%v", err)

		a := f.worker(t, f.store, 10*time.Second, 0)
		_, err = a.Anchor(ctx, "next", digest("next"))
		require.NoError(t, err)
		require.Equal(t, chain.RepairStats{Resent: 1}, a.Repairs())
		_, err = a.Anchor(ctx, "crashed", digest("crashed"))
		require.NoError(t, err)
		require.EqualValues(t, 0, f.nonceOf(t, "crashed"), "the crashed key kept its nonce")
	})

	t.Run("young reservation is not filled", func(t *testing.T) {
		f := newGapFixture(t, 5*time.Millisecond)
		a := f.worker(t, f.store, 300*time.Millisecond, 0) // default grace
		_, err := f.store.ReserveNonce(ctx, "slow", a.From(), 0)
		require.NoError(t, err)
		_, err = a.Anchor(ctx, "next", digest("next"))
		require.Equal(t, errcode.BlockchainTxResultUnknown, errcode.Of(err), "%v", err)
		_, found, err := f.store.Load(ctx, chain.FillerKey(a.From(), 0))
		require.NoError(t, err)
		require.False(t, found)

		b := f.worker(t, f.store, 10*time.Second, 0)
		_, err = b.Anchor(ctx, "slow", digest("slow"))
		require.NoError(t, err)
		require.EqualValues(t, 0, f.nonceOf(t, "slow"))
		_, err = b.Anchor(ctx, "next", digest("next"))
		require.NoError(t, err)
	})

	t.Run("node lost its pool", func(t *testing.T) {
		f := newGapFixture(t, 0) // seals only on Commit
		_, err := f.worker(t, f.store, 200*time.Millisecond, 0).Anchor(ctx, "first", digest("first"))
		require.Equal(t, errcode.BlockchainTxResultUnknown, errcode.Of(err), "%v", err)
		f.chain.DropPending()

		a := f.worker(t, f.store, 10*time.Second, 0)
		done := make(chan error, 1)
		go func() {
			_, err := a.Anchor(ctx, "second", digest("second"))
			done <- err
		}()
		require.Eventually(t, func() bool { return f.chain.Pending() == 2 }, 5*time.Second, 5*time.Millisecond,
			"first is re-sent, so second is executable")
		f.chain.Commit()
		require.NoError(t, <-done)
		_, err = a.Anchor(ctx, "first", digest("first"))
		require.NoError(t, err)
	})
}
