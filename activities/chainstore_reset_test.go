package activities

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/chain"
)

// A node that lost mined transactions: their recorded blocks are listed, forgotten, and recorded again when the node
// mines them anew, and the credentials already anchored under the key follow the new block.
func TestChainStoreForgetAndRemine(t *testing.T) {
	ctx := context.Background()
	f := mustFixture(t)
	s := ChainStore{DB: f.DB}
	_, ids := f.mustIssuance(t, "live", 3, recipient{State: "ISSUED"}, recipient{})

	nonce, err := s.ReserveNonce(ctx, "anchor/a", sender, 0)
	require.NoError(t, err)
	p := chain.Pending{From: sender, Nonce: nonce, TxHash: "0xaaaa", RawTx: []byte{0xa}, Digest: [32]byte{1}, ChainID: 1337}
	_, err = s.SaveSigned(ctx, "anchor/a", p)
	require.NoError(t, err)
	require.NoError(t, s.MarkMined(ctx, "anchor/a", 5))
	// The first credential was anchored under the key (RecordAnchorMined); the second is not assigned to it.
	_, err = f.DB.Pool.Exec(ctx, `UPDATE assertions SET anchor_key = 'anchor/a', anchor_tx_hash = '0xaaaa',
		anchor_block = 5, anchor_chain_id = 1337 WHERE id = $1`, ids[0])
	require.NoError(t, err)

	rs, err := s.Reservations(ctx, sender, 0, 1)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	require.True(t, rs[0].Signed)
	require.EqualValues(t, 5, rs[0].Tx.BlockNumber, "reservations carry their recorded block")
	unsettled, err := s.Unsettled(ctx, sender, 0, 1)
	require.NoError(t, err)
	require.Empty(t, unsettled)

	require.NoError(t, s.ForgetMined(ctx, sender, 0, 1))
	unsettled, err = s.Unsettled(ctx, sender, 0, 1)
	require.NoError(t, err)
	require.Len(t, unsettled, 1, "a forgotten block makes the row unsettled again")
	require.EqualValues(t, 5, *f.mustAssertion(t, ids[0]).AnchorBlock, "credentials keep the last known block meanwhile")

	require.NoError(t, s.MarkMined(ctx, "anchor/a", 9))
	loaded, _, err := s.Load(ctx, "anchor/a")
	require.NoError(t, err)
	require.EqualValues(t, 9, loaded.BlockNumber)
	require.EqualValues(t, 9, *f.mustAssertion(t, ids[0]).AnchorBlock, "the anchored credential follows the new block")
	require.Nil(t, f.mustAssertion(t, ids[1]).AnchorBlock, "a credential not anchored under the key is untouched")
}
