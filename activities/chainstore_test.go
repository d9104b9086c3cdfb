package activities

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/chain"
)

const sender = "0x00000000000000000000000000000000000000A1"

func TestChainStoreReserveNonce(t *testing.T) {
	ctx := context.Background()
	s := ChainStore{DB: dbtest.New(t)}

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
	s := ChainStore{DB: dbtest.New(t)}

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
	s := ChainStore{DB: dbtest.New(t)}

	_, err := s.SaveSigned(ctx, "nobody", chain.Pending{From: sender, TxHash: "0x01", RawTx: []byte{1}})
	require.Error(t, err, "saving without a reservation")

	nonce, err := s.ReserveNonce(ctx, "k", sender, 3)
	require.NoError(t, err)
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
