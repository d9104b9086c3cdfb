package activities

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/internal/chain/pgstore"
	"github.com/badged/badged/internal/issuer"
)

// walletCopy claims a copy of assertion with the claim's own statement; pending marks it for anchoring (live).
func (f *fixture) walletCopy(t *testing.T, assertion uuid.UUID, mode string, body string) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	o, err := f.DB.CreateCredentialOffer(ctx, db.CreateCredentialOfferParams{ID: uuid.New(), AssertionID: assertion,
		OrgID: f.OrgID, Mode: mode, TtlSeconds: 3600})
	require.NoError(t, err)
	id := uuid.New()
	sum := sha256.Sum256([]byte(body))
	nonce := "nonce-" + id.String()
	require.NoError(t, oneRow(f.DB.CreateWalletNonce(ctx, db.CreateWalletNonceParams{Nonce: nonce, TtlSeconds: 300, Client: "192.0.2.1", MaxLive: 100})))
	c, err := f.DB.ClaimWalletCopy(ctx, db.ClaimWalletCopyParams{Nonce: nonce, TokenHash: []byte(id.String()), OfferID: o.ID,
		ID: id, AssertionID: assertion, OrgID: f.OrgID, ConfigurationID: "OpenBadgeCredential_ldp_vc", Format: "ldp_vc",
		HolderDid: "did:key:z6Mk" + id.String()[:8], Credential: []byte(body), CredentialSha256: sum[:],
		NotificationID: id.String(), AnchorPending: mode == "live"})
	require.NoError(t, err)
	require.NotNil(t, c.CreatedAt, "the copy is stored")
	return id
}

// devAnchorer is an Anchorer on a dev chain of its own, storing its transactions in the fixture's database.
func (f *fixture) devAnchorer(t *testing.T) *chain.Anchorer {
	t.Helper()
	c, err := devchain.Start(devchain.Config{BlockInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	an, err := chain.New(chain.Config{RPCURL: c.URL(), PrivateKey: c.PrivateKeyHex(), ChainID: devchain.ChainID,
		ReceiptTimeout: 30 * time.Second, PollInterval: 5 * time.Millisecond}, pgstore.Store{DB: f.DB})
	require.NoError(t, err)
	t.Cleanup(an.Close)
	return an
}

// TestWalletSweep_AnchorsCopies anchors claimed live copies on the dev chain in one Merkle-root transaction; each
// copy's receipt (what /credentials/{copyId}/receipt serves) checks against its bytes and the transaction data.
// A test-mode copy is never anchored, and a second pass finds nothing to do.
func TestWalletSweep_AnchorsCopies(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	an := f.devAnchorer(t)

	_, live := f.mustIssuance(t, "live", 3, recipient{State: "ISSUED"})
	_, test := f.mustIssuance(t, "test", 3, recipient{State: "ISSUED"})
	bodies := []string{`{"copy":1}`, `{"copy":2}`, `"eyJhbGciOiJFZERTQSJ9.e30.sig"`}
	var copies []uuid.UUID
	for _, b := range bodies {
		copies = append(copies, f.walletCopy(t, live[0], "live", b))
	}
	testCopy := f.walletCopy(t, test[0], "test", `{"copy":"test"}`)

	s := WalletSweep{DB: f.DB, Anchor: an, Log: quietLog()}
	n, err := s.AnchorOnce(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, n)

	iss := issuer.New(f.DB, nil, "https://badges.example")
	var tx string
	for i, id := range copies {
		rec, found, err := iss.Receipt(ctx, id)
		require.NoError(t, err)
		require.True(t, found, "copy %d has a receipt once mined", i)
		require.Equal(t, "urn:uuid:"+id.String(), rec.CredentialID)
		digest, err := rec.CheckDigest([]byte(bodies[i]))
		require.NoError(t, err)
		_, err = rec.AnchoredData(digest)
		require.NoError(t, err)
		require.NotNil(t, rec.Merkle, "the copies share one transaction")
		if tx == "" {
			tx = rec.Chain.TransactionHash
		}
		require.Equal(t, tx, rec.Chain.TransactionHash)
	}
	_, found, err := iss.Receipt(ctx, testCopy)
	require.NoError(t, err)
	require.False(t, found, "a test-mode copy is never anchored")

	n, err = s.AnchorOnce(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "nothing pending, nothing unmined")

	// A copy claimed later goes in the next transaction.
	late := f.walletCopy(t, live[0], "live", `{"copy":"late"}`)
	n, err = s.AnchorOnce(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	rec, found, err := iss.Receipt(ctx, late)
	require.NoError(t, err)
	require.True(t, found)
	require.NotEqual(t, tx, rec.Chain.TransactionHash)
}

// TestWalletSweep_ResumesAssignedAnchor: copies assigned to an anchor key whose transaction was never sent (the
// sweep died after the assignment) are sent by the next pass.
func TestWalletSweep_ResumesAssignedAnchor(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	an := f.devAnchorer(t)
	_, live := f.mustIssuance(t, "live", 3, recipient{State: "ISSUED"})
	id := f.walletCopy(t, live[0], "live", `{"copy":"orphan"}`)
	s := WalletSweep{DB: f.DB, Anchor: an, Log: quietLog()}
	assigned, err := s.assign(ctx, "wallet-anchor/died")
	require.NoError(t, err)
	require.Equal(t, 1, assigned)

	n, err := s.AnchorOnce(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	_, found, err := issuer.New(f.DB, nil, "https://badges.example").Receipt(ctx, id)
	require.NoError(t, err)
	require.True(t, found)
}

// TestWalletSweep_Purge deletes expired codes, tokens (a day past expiry), nonces and exchange challenges, logs the counts, and keeps
// the live ones.
func TestWalletSweep_Purge(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	_, live := f.mustIssuance(t, "live", 3, recipient{State: "ISSUED"})
	o, err := f.DB.CreateCredentialOffer(ctx, db.CreateCredentialOfferParams{ID: uuid.New(), AssertionID: live[0],
		OrgID: f.OrgID, Mode: "live", TtlSeconds: 3600})
	require.NoError(t, err)
	const dayAgo = -2 * 24 * 3600
	for i, ttl := range []int32{dayAgo, dayAgo, 600} {
		code := []byte{byte(i), 'c'}
		require.NoError(t, oneRow(f.DB.CreatePreauthCode(ctx, db.CreatePreauthCodeParams{CodeHash: code, OfferID: o.ID, TtlSeconds: ttl, WindowSeconds: 600, MaxMinted: 10})))
		require.NoError(t, f.DB.CreateWalletAccessToken(ctx, db.CreateWalletAccessTokenParams{TokenHash: code, OfferID: o.ID, TtlSeconds: ttl}))
	}
	// A token that expired an hour ago stays a day, for the logs.
	require.NoError(t, f.DB.CreateWalletAccessToken(ctx, db.CreateWalletAccessTokenParams{TokenHash: []byte("recent"), OfferID: o.ID, TtlSeconds: -3600}))
	require.NoError(t, oneRow(f.DB.CreateWalletNonce(ctx, db.CreateWalletNonceParams{Nonce: "stale", TtlSeconds: -1, Client: "192.0.2.1", MaxLive: 100})))
	require.NoError(t, oneRow(f.DB.CreateWalletNonce(ctx, db.CreateWalletNonceParams{Nonce: "fresh", TtlSeconds: 300, Client: "192.0.2.1", MaxLive: 100})))
	for i, ttl := range []int32{-1, 600} {
		n, err := f.DB.CreateExchangeChallenge(ctx, db.CreateExchangeChallengeParams{ChallengeHash: []byte{byte(i), 'x'}, OfferID: o.ID, TtlSeconds: ttl})
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
	}

	s := WalletSweep{DB: f.DB, Log: quietLog()}
	n, err := s.PurgeOnce(ctx)
	require.NoError(t, err)
	require.Equal(t, db.PurgeWalletSecretsRow{Codes: 2, Tokens: 2, Nonces: 1}, n)
	count := func(table string) int {
		var c int
		require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&c))
		return c
	}
	require.Equal(t, 1, count("preauth_codes"))
	require.Equal(t, 2, count("wallet_access_tokens"))
	require.Equal(t, 1, count("wallet_nonces"))
	require.Equal(t, 1, count("exchange_challenges"), "the expired exchange challenge is purged too")
	n, err = s.PurgeOnce(ctx)
	require.NoError(t, err)
	require.Zero(t, n.Codes+n.Tokens+n.Nonces)
}

// oneRow is the error of a conditional insert (CreateWalletNonce, CreatePreauthCode) that must have made its row.
func oneRow(n int64, err error) error {
	if err == nil && n != 1 {
		err = fmt.Errorf("%d rows made, want 1", n)
	}
	return err
}
