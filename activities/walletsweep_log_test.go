package activities

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuancelog"
	"github.com/badged/badged/internal/issuer"
)

// TestWalletSweep_LogsCopies: the sweep appends the live copies it anchors to their organization's issuance log in
// claim order (test copies never), in the assignment's transaction, and the checkpoint's root is a leaf of the
// same anchor transaction's tree: the copies' receipts still prove their digests to the transaction's root.
func TestWalletSweep_LogsCopies(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	ring, err := credential.NewKeyring("test:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	require.NoError(t, err)
	iss := issuer.New(f.DB, ring, "https://badges.example")
	_, live := f.mustIssuance(t, "live", 3, recipient{State: "ISSUED"})
	_, test := f.mustIssuance(t, "test", 3, recipient{State: "ISSUED"})
	bodies := []string{`{"copy":1}`, `{"copy":2}`}
	var copies []uuid.UUID
	for _, b := range bodies {
		copies = append(copies, f.walletCopy(t, live[0], "live", b))
	}
	f.walletCopy(t, test[0], "test", `{"copy":"test"}`)

	s := WalletSweep{DB: f.DB, Anchor: f.devAnchorer(t), Issuer: iss, Log: quietLog()}
	n, err := s.AnchorOnce(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n)

	rows, err := f.DB.ReadIssuanceLogEntries(ctx, db.ReadIssuanceLogEntriesParams{OrgID: f.OrgID, Lo: 0, Hi: 10})
	require.NoError(t, err)
	require.Len(t, rows, 2, "the live copies, not the test one")
	for i, r := range rows {
		e, err := issuancelog.ParseEntry(r.Entry)
		require.NoError(t, err)
		require.Equal(t, "urn:uuid:"+copies[i].String(), e.CredentialID, "claim order")
		require.Equal(t, sha256.Sum256([]byte(bodies[i])), e.SHA256)
	}
	var root []byte
	var proof []byte
	require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT root_hash, anchor_proof FROM issuance_log_checkpoints WHERE org_id = $1", f.OrgID).Scan(&root, &proof))
	var p chain.Proof
	require.NoError(t, p.UnmarshalJSON(proof))
	rec, found, err := iss.Receipt(ctx, copies[0])
	require.NoError(t, err)
	require.True(t, found)
	anchored := p.Root([32]byte(root))
	require.Equal(t, rec.Merkle.Root, "0x"+hex.EncodeToString(anchored[:]), "the checkpoint's root is a leaf of the copies' anchor")
	digest, err := rec.CheckDigest([]byte(bodies[0]))
	require.NoError(t, err)
	_, err = rec.AnchoredData(digest)
	require.NoError(t, err)
}
