package chain

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
)

func mustGasUsed(tb testing.TB, c *testChain, txHash string) uint64 {
	tb.Helper()
	r, err := c.sim.Client().TransactionReceipt(context.Background(), common.HexToHash(txHash))
	require.NoError(tb, err)
	return r.GasUsed
}

func testDigests(prefix string, n int) [][32]byte {
	out := make([][32]byte, n)
	for i := range out {
		out[i] = digestOf(fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}

// 1,000 credentials anchored one by one and as one Merkle batch: tx count and gas per credential.
func TestAnchorBatch_Saving1000(t *testing.T) {
	c := mustTestChain(t)
	c.autoCommit(t, 5*time.Millisecond)
	store := NewMemStore()
	a := mustAnchorer(t, c.config(), store)
	ctx := context.Background()
	const n = 1000
	digests := testDigests("cred", n)

	start := time.Now()
	batch, err := a.AnchorBatch(ctx, "batch-1", digests)
	require.NoError(t, err)
	batchTime := time.Since(start)
	require.Len(t, batch.Proofs, n)
	batchGas := mustGasUsed(t, c, batch.TxHash)

	for _, i := range []int{0, 1, 499, 998, 999} {
		got, err := a.VerifyProof(ctx, batch.TxHash, digests[i], batch.Proofs[i])
		require.NoError(t, err, "credential %d", i)
		require.Equal(t, batch.Anchor, got)
	}
	_, err = a.VerifyProof(ctx, batch.TxHash, digests[0], batch.Proofs[1])
	require.ErrorIs(t, err, ErrDataMismatch)
	require.Equal(t, errcode.BlockchainReceiptInvalid, errcode.Of(err))
	_, err = a.VerifyProof(ctx, batch.TxHash, digestOf("not in batch"), batch.Proofs[0])
	require.ErrorIs(t, err, ErrDataMismatch)

	// The batch is idempotent like a single anchor.
	again, err := a.AnchorBatch(ctx, "batch-1", digests)
	require.NoError(t, err)
	require.Equal(t, batch.Anchor, again.Anchor)

	start = time.Now()
	hashes := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 50)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			var anc Anchor
			anc, errs[i] = a.Anchor(ctx, fmt.Sprintf("single-%d", i), digests[i])
			hashes[i] = anc.TxHash
		})
	}
	wg.Wait()
	singleTime := time.Since(start)
	var singleGas uint64
	for i := range n {
		require.NoError(t, errs[i])
		singleGas += mustGasUsed(t, c, hashes[i])
	}
	require.Equal(t, uint64(1+n), c.nonce(t, c.from), "one batch tx plus one tx per single anchor")
	require.Less(t, batchGas, singleGas/n*2, "one batch costs about one single anchor")

	t.Logf("1000 credentials, one tx each: %d txs, %d gas total, %d gas/credential, %v wall (50 in flight)",
		n, singleGas, singleGas/n, singleTime)
	t.Logf("1000 credentials, merkle batch: 1 tx, %d gas total, %.1f gas/credential, %v wall, proof %d hashes",
		batchGas, float64(batchGas)/n, batchTime, len(batch.Proofs[0]))
}
