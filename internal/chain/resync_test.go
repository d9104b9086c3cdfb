package chain

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/chain/devchain"
)

// planGap: what gap repair sends for the nonces a node lacks, in nonce order, and whether the node lost blocks.
func TestPlanGap(t *testing.T) {
	const grace = time.Minute
	signed := func(n, block uint64) Reservation {
		return Reservation{Key: fmt.Sprint("k", n), Nonce: n, Signed: true, Tx: Pending{Nonce: n, BlockNumber: block}}
	}
	unsigned := func(n uint64, age time.Duration) Reservation {
		return Reservation{Key: fmt.Sprint("k", n), Nonce: n, Age: age}
	}
	nonces := func(rs []Reservation) []uint64 {
		out := []uint64{}
		for _, r := range rs {
			out = append(out, r.Nonce)
		}
		return out
	}
	cases := []struct {
		name   string
		rs     []Reservation
		send   []uint64
		behind bool
	}{
		{"nothing lacking", nil, []uint64{}, false},
		{"lost pool: signed, unmined", []Reservation{signed(3, 0), signed(4, 0)}, []uint64{3, 4}, false},
		{"reset node: recorded blocks it lacks", []Reservation{signed(0, 7), signed(1, 7), signed(2, 0)}, []uint64{0, 1, 2}, true},
		{"abandoned reservation is filled in order", []Reservation{signed(0, 2), unsigned(1, 2*grace), signed(2, 0)}, []uint64{0, 1, 2}, true},
		{"young reservation is left to its worker", []Reservation{signed(5, 0), unsigned(6, time.Second), signed(7, 0)}, []uint64{5, 7}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := planGap(tc.rs, grace)
			require.Equal(t, tc.send, nonces(p.send))
			require.Equal(t, tc.behind, p.behind)
		})
	}
}

// restartable starts dev chains one after another on one address, as a node that is reset or replaced would be.
func startAt(tb testing.TB, cfg devchain.Config) *devchain.Chain {
	tb.Helper()
	c, err := devchain.Start(cfg)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// A node reset to genesis (a new, empty node behind the same URL, same key) lacks every anchor the store records as
// mined. The next anchor finds the node behind the stored nonces, sends the stored transactions again in nonce
// order, is mined after them, and the stored blocks follow the new chain.
func TestResync_NodeResetRebroadcastsInNonceOrder(t *testing.T) {
	old := startAt(t, devchain.Config{BlockInterval: 5 * time.Millisecond})
	addr := strings.TrimPrefix(old.URL(), "http://")
	store := NewMemStore()
	cfg := devConfig(old)
	a := mustAnchorer(t, cfg, store)
	ctx := context.Background()
	const n = 6
	before := map[string]Anchor{}
	for i := range n {
		key := fmt.Sprint("old-", i)
		anc, err := a.Anchor(ctx, key, digestOf(key))
		require.NoError(t, err)
		before[key] = anc
	}
	// The last anchors share a block on the new chain, where the old chain had one block each.
	require.NoError(t, old.Close())
	fresh := startAt(t, devchain.Config{Addr: addr, BlockInterval: 50 * time.Millisecond})
	require.Zero(t, fresh.BlockNumber())

	got, err := a.Anchor(ctx, "new", digestOf("new"))
	require.NoError(t, err, "anchoring resumes on the reset node")
	require.EqualValues(t, 1, a.Repairs().Behind, "the reset was detected once")
	require.GreaterOrEqual(t, a.Repairs().Resent, uint64(n))
	p, _, err := store.Load(ctx, "new")
	require.NoError(t, err)
	require.EqualValues(t, n, p.Nonce, "the new anchor takes the next stored nonce, not the node's")
	require.EqualValues(t, n+1, minedNonce(t, a), "each stored transaction is mined once, no filler")

	var lastBlock uint64
	for i := range n {
		key := fmt.Sprint("old-", i)
		r, err := a.client.TransactionReceipt(ctx, common.HexToHash(before[key].TxHash))
		require.NoError(t, err, "%s is mined on the new node", key)
		block := r.BlockNumber.Uint64()
		require.GreaterOrEqual(t, block, lastBlock, "mined in nonce order")
		require.LessOrEqual(t, block, got.BlockNumber)
		lastBlock = block
		stored, _, err := store.Load(ctx, key)
		require.NoError(t, err)
		require.Equal(t, block, stored.BlockNumber, "%s: the stored block follows the new chain", key)
		again, err := a.Anchor(ctx, key, digestOf(key))
		require.NoError(t, err)
		require.Equal(t, Anchor{TxHash: before[key].TxHash, BlockNumber: block, ChainID: devchain.ChainID}, again)
	}
}

// A node that lost its pool (restarted without its transactions) while anchors wait: each waiter's repair sends
// what the node lacks, its own transaction included, and every anchor is mined once.
func TestResync_LostPoolWhileWaiting(t *testing.T) {
	c := startAt(t, devchain.Config{})
	store := NewMemStore()
	cfg := devConfig(c)
	a := mustAnchorer(t, cfg, store)
	a.s.gapCheck = 20 * time.Millisecond
	ctx := context.Background()
	const n = 4
	errs := make(chan error, n)
	for i := range n {
		go func() {
			key := fmt.Sprint("k-", i)
			_, err := a.Anchor(ctx, key, digestOf(key))
			errs <- err
		}()
	}
	require.Eventually(t, func() bool { return c.Pending() == n }, 10*time.Second, 5*time.Millisecond)
	c.DropPending()
	require.Zero(t, c.Pending())
	// Seal until every waiter is done; the pool is refilled by the waiters' repairs.
	done := 0
	deadline := time.After(20 * time.Second)
	for done < n {
		select {
		case err := <-errs:
			require.NoError(t, err)
			done++
		case <-time.After(30 * time.Millisecond):
			c.Commit()
		case <-deadline:
			t.Fatalf("%d of %d anchors mined", done, n)
		}
	}
	require.EqualValues(t, n, minedNonce(t, a))
	require.Positive(t, a.Repairs().Resent)
	require.Zero(t, a.Repairs().Behind, "nothing recorded as mined was lost")
}
