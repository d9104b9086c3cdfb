package chain

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

const memSender = "0x00000000000000000000000000000000000000A1"

func TestMemStore_SaveSignedNeedsTheReservation(t *testing.T) {
	ctx := context.Background()
	m := NewMemStore()
	_, err := m.SaveSigned(ctx, "nobody", Pending{From: memSender, TxHash: "0x01", RawTx: []byte{1}})
	require.ErrorIs(t, err, ErrNotReserved)

	n, err := m.ReserveNonce(ctx, "k", memSender, 4)
	require.NoError(t, err)
	_, err = m.SaveSigned(ctx, "k", Pending{From: memSender, Nonce: n + 1, TxHash: "0x01", RawTx: []byte{1}})
	require.ErrorIs(t, err, ErrNotReserved, "another nonce than the reserved one")
	p := Pending{From: memSender, Nonce: n, TxHash: "0x02", RawTx: []byte{2}}
	got, err := m.SaveSigned(ctx, "k", p)
	require.NoError(t, err)
	require.Equal(t, p, got)
}

func TestMemStore_UnsettledAndReplaceAbandoned(t *testing.T) {
	ctx := context.Background()
	m := NewMemStore()
	for i := range 5 {
		_, err := m.ReserveNonce(ctx, fmt.Sprintf("k%d", i), memSender, 0)
		require.NoError(t, err)
	}
	_, err := m.ReserveNonce(ctx, "other", "0xOTHER", 0)
	require.NoError(t, err)
	signed := Pending{From: memSender, Nonce: 1, TxHash: "0x11", RawTx: []byte{0x11}}
	_, err = m.SaveSigned(ctx, "k1", signed)
	require.NoError(t, err)
	_, err = m.SaveSigned(ctx, "k2", Pending{From: memSender, Nonce: 2, TxHash: "0x22", RawTx: []byte{0x22}})
	require.NoError(t, err)
	require.NoError(t, m.MarkMined(ctx, "k2", 9))

	rs, err := m.Unsettled(ctx, memSender, 1, 4)
	require.NoError(t, err)
	require.Len(t, rs, 2, "k2 is mined, k0 and k4 are outside [1, 4): %+v", rs)
	require.Equal(t, "k1", rs[0].Key)
	require.True(t, rs[0].Signed)
	require.Equal(t, signed, rs[0].Tx)
	require.Equal(t, "k3", rs[1].Key)
	require.False(t, rs[1].Signed)
	require.Positive(t, rs[1].Age)

	_, ok, err := m.ReplaceAbandoned(ctx, "k1", Pending{From: memSender, Nonce: 1, TxHash: "0xf1", RawTx: []byte{0xf1}})
	require.NoError(t, err)
	require.False(t, ok, "a signed key keeps its nonce")
	_, ok, err = m.ReplaceAbandoned(ctx, "k3", Pending{From: memSender, Nonce: 0, TxHash: "0xf0", RawTx: []byte{0xf0}})
	require.NoError(t, err)
	require.False(t, ok, "k3 does not hold nonce 0")

	// Racing repairs of one nonce: one filler is stored and every repair gets that one.
	fillers := make([]Pending, 8)
	oks := make([]bool, len(fillers))
	errs := make([]error, len(fillers))
	var wg sync.WaitGroup
	for i := range fillers {
		wg.Go(func() {
			f := Pending{From: memSender, Nonce: 3, TxHash: fmt.Sprintf("0xf3%02d", i), RawTx: []byte{byte(i)}}
			fillers[i], oks[i], errs[i] = m.ReplaceAbandoned(ctx, "k3", f)
		})
	}
	wg.Wait()
	for i, f := range fillers {
		require.NoError(t, errs[i])
		require.True(t, oks[i])
		require.Equal(t, fillers[0], f)
	}
	stored, found, err := m.Load(ctx, FillerKey(memSender, 3))
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, fillers[0], stored)

	rs, err = m.Unsettled(ctx, memSender, 3, 4)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.Equal(t, FillerKey(memSender, 3), rs[0].Key, "the filler holds the nonce now, and is re-sent like any tx")

	// The released key: its late save is refused, its retry reserves a fresh nonce.
	_, err = m.SaveSigned(ctx, "k3", Pending{From: memSender, Nonce: 3, TxHash: "0x33", RawTx: []byte{0x33}})
	require.ErrorIs(t, err, ErrNotReserved)
	n, err := m.ReserveNonce(ctx, "k3", memSender, 0)
	require.NoError(t, err)
	require.EqualValues(t, 5, n)
}
