package chain

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/internal/errcode"
)

// mustDevChain starts the dev chain the service runs against; interval 0 seals only on Commit.
func mustDevChain(tb testing.TB, interval time.Duration) *devchain.Chain {
	tb.Helper()
	c, err := devchain.Start(devchain.Config{BlockInterval: interval})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

func devConfig(c *devchain.Chain) Config {
	return Config{
		RPCURL: c.URL(), PrivateKey: c.PrivateKeyHex(), ChainID: devchain.ChainID,
		ReceiptTimeout: 10 * time.Second, PollInterval: 5 * time.Millisecond,
	}
}

// minedNonce returns how many transactions of the dev key are mined.
func minedNonce(tb testing.TB, a *Anchorer) uint64 {
	tb.Helper()
	n, err := a.client.NonceAt(context.Background(), a.s.from, nil)
	require.NoError(tb, err)
	return n
}

// A key abandoned after ReserveNonce (its step gave up, nobody retries it) would hold back every later anchor
// forever. Once the reservation is older than the grace, a filler takes its nonce and the next anchor is mined; the
// abandoned key, if re-driven later, reserves a fresh nonce instead of colliding with the filler.
func TestGapRepair_AbandonedReservationIsFilled(t *testing.T) {
	c := mustDevChain(t, 5*time.Millisecond)
	cfg := devConfig(c)
	cfg.RepairGrace = 50 * time.Millisecond
	store := NewMemStore()
	a := mustAnchorer(t, cfg, store)
	ctx := context.Background()

	from := a.From()
	n, err := store.ReserveNonce(ctx, "abandoned", from, 0)
	require.NoError(t, err)
	require.Zero(t, n)
	time.Sleep(2 * cfg.RepairGrace)

	got, err := a.Anchor(ctx, "next", digestOf("next"))
	require.NoError(t, err, "the gap below the anchor is filled")
	p, _, err := store.Load(ctx, "next")
	require.NoError(t, err)
	require.EqualValues(t, 1, p.Nonce)
	require.Equal(t, RepairStats{Filled: 1}, a.Repairs())

	filler, found, err := store.Load(ctx, FillerKey(from, 0))
	require.NoError(t, err)
	require.True(t, found, "the filler is stored under its deterministic key")
	r, err := a.client.TransactionReceipt(ctx, common.HexToHash(filler.TxHash))
	require.NoError(t, err, "the filler is mined at the abandoned nonce")
	require.LessOrEqual(t, r.BlockNumber.Uint64(), got.BlockNumber)
	tx, _, err := a.client.TransactionByHash(ctx, r.TxHash)
	require.NoError(t, err)
	require.Zero(t, tx.Nonce())
	require.Zero(t, tx.Value().Sign())
	require.Empty(t, tx.Data())
	require.Equal(t, common.HexToAddress(from), *tx.To())

	// An operator re-drives the abandoned key: it gets a fresh nonce and is mined too.
	_, found, err = store.Load(ctx, "abandoned")
	require.NoError(t, err)
	require.False(t, found)
	_, err = a.Anchor(ctx, "abandoned", digestOf("abandoned"))
	require.NoError(t, err)
	p, _, err = store.Load(ctx, "abandoned")
	require.NoError(t, err)
	require.EqualValues(t, 2, p.Nonce)
	require.EqualValues(t, 3, minedNonce(t, a))
}

// A worker died after SaveSigned and before broadcasting: its stored transaction is sent by the next anchor's
// repair, and both are mined.
func TestGapRepair_SignedNeverBroadcastIsResent(t *testing.T) {
	c := mustDevChain(t, 5*time.Millisecond)
	store := NewMemStore()
	a := mustAnchorer(t, devConfig(c), store)
	ctx := context.Background()

	crashed, err := a.sign(ctx, "crashed", digestOf("crashed")) // reserved and saved, never sent
	require.NoError(t, err)
	require.Zero(t, crashed.Nonce)

	_, err = a.Anchor(ctx, "next", digestOf("next"))
	require.NoError(t, err)
	require.EqualValues(t, 2, minedNonce(t, a))
	require.Equal(t, RepairStats{Resent: 1}, a.Repairs())

	got, err := a.Anchor(ctx, "crashed", digestOf("crashed"))
	require.NoError(t, err, "the crashed key's retry finds its transaction mined")
	require.Equal(t, crashed.TxHash, got.TxHash)
}

// A reservation younger than the grace belongs to a worker that may still be about to send: it is not filled, and
// when that worker goes on, both transactions are mined in order.
func TestGapRepair_YoungReservationIsNotFilled(t *testing.T) {
	c := mustDevChain(t, 5*time.Millisecond)
	cfg := devConfig(c) // default grace of two minutes
	cfg.ReceiptTimeout = 300 * time.Millisecond
	store := NewMemStore()
	a := mustAnchorer(t, cfg, store)
	a.s.gapCheck = 10 * time.Millisecond // re-check often during the wait: still nothing may be filled
	ctx := context.Background()

	_, err := store.ReserveNonce(ctx, "slow", a.From(), 0)
	require.NoError(t, err)
	_, err = a.Anchor(ctx, "next", digestOf("next"))
	require.Equal(t, errcode.BlockchainTxResultUnknown, errcode.Of(err), "%v", err)
	_, found, err := store.Load(ctx, FillerKey(a.From(), 0))
	require.NoError(t, err)
	require.False(t, found)
	require.Zero(t, a.Repairs().Filled)
	require.Zero(t, minedNonce(t, a))

	a.s.receiptTimeout = 10 * time.Second
	slow, err := a.Anchor(ctx, "slow", digestOf("slow"))
	require.NoError(t, err, "the slow worker keeps its nonce")
	next, err := a.Anchor(ctx, "next", digestOf("next"))
	require.NoError(t, err)
	require.LessOrEqual(t, slow.BlockNumber, next.BlockNumber)
	require.EqualValues(t, 2, minedNonce(t, a))
}

// The node restarted and lost its pool: a stored but unmined transaction below ours is sent again, so ours becomes
// executable instead of waiting behind the hole.
func TestGapRepair_NodeLostPoolIsResent(t *testing.T) {
	c := mustDevChain(t, 0) // seals only on Commit
	cfg := devConfig(c)
	cfg.ReceiptTimeout = 200 * time.Millisecond
	store := NewMemStore()
	a := mustAnchorer(t, cfg, store)
	ctx := context.Background()

	_, err := a.Anchor(ctx, "first", digestOf("first"))
	require.Equal(t, errcode.BlockchainTxResultUnknown, errcode.Of(err), "%v", err)
	require.Equal(t, 1, c.Pending())
	c.DropPending()
	require.Zero(t, c.Pending())

	a.s.receiptTimeout = 10 * time.Second
	done := make(chan error, 1)
	go func() {
		_, err := a.Anchor(ctx, "second", digestOf("second"))
		done <- err
	}()
	require.Eventually(t, func() bool { return c.Pending() == 2 }, 5*time.Second, 5*time.Millisecond,
		"first is re-sent, so second is executable")
	c.Commit()
	require.NoError(t, <-done)
	require.EqualValues(t, 2, minedNonce(t, a))
	require.Equal(t, uint64(1), a.Repairs().Resent)
	_, err = a.Anchor(ctx, "first", digestOf("first"))
	require.NoError(t, err)
}

// stealingStore lets another worker's repair take the nonce of a key between its ReserveNonce and its SaveSigned,
// as happens when the key's worker stalls longer than the grace.
type stealingStore struct {
	*MemStore
	thief    *Anchorer
	once     sync.Once
	thiefErr error
}

func (s *stealingStore) SaveSigned(ctx context.Context, key string, p Pending) (Pending, error) {
	s.once.Do(func() { s.thiefErr = s.thief.fill(ctx, Reservation{Key: key, Nonce: p.Nonce}) })
	return s.MemStore.SaveSigned(ctx, key, p)
}

// A worker whose nonce was filled while it stalled must not save a second transaction for that nonce: it signs
// again with a fresh one, and both the filler and its anchor are mined.
func TestGapRepair_NonceFilledBetweenReserveAndSave(t *testing.T) {
	c := mustDevChain(t, 5*time.Millisecond)
	mem := NewMemStore()
	store := &stealingStore{MemStore: mem, thief: mustAnchorer(t, devConfig(c), mem)}
	a := mustAnchorer(t, devConfig(c), store)
	ctx := context.Background()

	_, err := a.Anchor(ctx, "stalled", digestOf("stalled"))
	require.NoError(t, err)
	require.NoError(t, store.thiefErr)
	p, _, err := store.Load(ctx, "stalled")
	require.NoError(t, err)
	require.EqualValues(t, 1, p.Nonce, "nonce 0 went to the filler")
	require.Equal(t, RepairStats{Filled: 1}, store.thief.Repairs())
	require.EqualValues(t, 2, minedNonce(t, a))
}
