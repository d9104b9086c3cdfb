package pgstore

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/chain"
)

// A node that lost mined transactions: their recorded blocks are listed, forgotten, and recorded again when the node
// mines them anew, and the credentials already anchored under the key follow the new block.
func TestChainStoreForgetAndRemine(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	s := Store{DB: d}
	ids := mustAssertions(t, d, 2)

	nonce, err := s.ReserveNonce(ctx, "anchor/a", sender, 0)
	require.NoError(t, err)
	p := chain.Pending{From: sender, Nonce: nonce, TxHash: "0xaaaa", RawTx: []byte{0xa}, Digest: [32]byte{1}, ChainID: 1337}
	_, err = s.SaveSigned(ctx, "anchor/a", p)
	require.NoError(t, err)
	require.NoError(t, s.MarkMined(ctx, "anchor/a", 5))
	// The first credential was anchored under the key (RecordAnchorMined); the second is not assigned to it.
	_, err = d.Pool.Exec(ctx, `UPDATE assertions SET anchor_key = 'anchor/a', anchor_tx_hash = '0xaaaa',
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
	require.EqualValues(t, 5, *anchorBlock(t, d, ids[0]), "credentials keep the last known block meanwhile")

	require.NoError(t, s.MarkMined(ctx, "anchor/a", 9))
	loaded, _, err := s.Load(ctx, "anchor/a")
	require.NoError(t, err)
	require.EqualValues(t, 9, loaded.BlockNumber)
	require.EqualValues(t, 9, *anchorBlock(t, d, ids[0]), "the anchored credential follows the new block")
	require.Nil(t, anchorBlock(t, d, ids[1]), "a credential not anchored under the key is untouched")
}

// mustAssertions inserts n live assertions of one issuance (with the organization, badge and program they
// belong to): the rows MarkMined moves to a new block.
func mustAssertions(t *testing.T, d *db.DB, n int) []uuid.UUID {
	t.Helper()
	ctx := context.Background()
	org, image, program, badge, iss := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
	now := time.Now().UTC().Truncate(time.Second)
	_, err := d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: org, Name: "Org", Credits: 1})
	require.NoError(t, err)
	_, err = d.CreateMediaFile(ctx, db.CreateMediaFileParams{ID: image, OrgID: org, ContentType: "image/png", Ext: "png",
		Width: 1, Height: 1, SizeBytes: 4})
	require.NoError(t, err)
	_, err = d.CreateProgram(ctx, db.CreateProgramParams{ID: program, OrgID: org, Name: "P", CategoryCode: "ETC", ImageID: image})
	require.NoError(t, err)
	_, err = d.CreateBadge(ctx, db.CreateBadgeParams{ID: badge, OrgID: org, Name: "B", Description: "B", CategoryCode: "ETC",
		Criteria: json.RawMessage(`[]`), ImageID: image, Skills: json.RawMessage(`[]`)})
	require.NoError(t, err)
	_, err = d.CreateIssuance(ctx, db.CreateIssuanceParams{ID: iss, OrgID: org, BadgeID: badge, ProgramID: program,
		ApiVersion: 3, Mode: "live", IdempotencyKey: iss.String(), RequestHash: []byte{1}, IssuedAt: now,
		AssertionCount: int32(n), WorkflowID: "wf-" + iss.String()})
	require.NoError(t, err)
	rows := make([]db.InsertAssertionsParams, n)
	ids := make([]uuid.UUID, n)
	for i := range rows {
		ids[i] = uuid.New()
		email := ids[i].String() + "@example.com"
		rows[i] = db.InsertAssertionsParams{ID: ids[i], OrgID: org, IssuanceID: iss, BadgeID: badge, ProgramID: program,
			Mode: "live", ApiVersion: 3, Seq: int32(i), SerialNumber: "S-" + ids[i].String(), RecipientName: "R",
			RecipientEmail: &email, ReceiveType: "EMAIL", IssuedAt: now, CreatedAt: now}
	}
	_, err = d.InsertAssertions(ctx, rows)
	require.NoError(t, err)
	return ids
}

func anchorBlock(t *testing.T, d *db.DB, id uuid.UUID) *int64 {
	t.Helper()
	as, err := d.GetAssertionByID(context.Background(), id)
	require.NoError(t, err)
	return as.AnchorBlock
}
