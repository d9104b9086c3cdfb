package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/oid4vci"
)

// adminJSON runs `badged admin <args>` as main does, with vars as the environment, and decodes its JSON answer; the
// error is what main turns into a non-zero exit.
func adminJSON(t *testing.T, vars map[string]string, args ...string) (map[string]any, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), append([]string{"admin"}, args...), func(k string) string { return vars[k] }, &out, &bytes.Buffer{})
	if err != nil {
		return nil, err
	}
	var m map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &m), out.String())
	return m, nil
}

// TestAdminAssertionCopies: `admin assertion copies` lists an assertion's claimed wallet copies as JSON (format,
// configuration, holder DID, claim time, the wallet's last notification, the anchor state), an assertion without
// copies as an empty list, and refuses a malformed or unknown id with the reason.
func TestAdminAssertionCopies(t *testing.T) {
	ctx := context.Background()
	f := mustOpFixture(t, 3, "live", []opRecipient{
		{State: "ISSUED", Step: "NOTIFIED", Published: true},
		{State: "ISSUED", Step: "NOTIFIED", Published: true},
	})
	vars := map[string]string{"DATABASE_URL": dbtest.URL(t, f.DB), "LOG_LEVEL": "error", "PUBLIC_BASE_URL": "https://badges.example"}
	o, err := f.DB.CreateCredentialOffer(ctx, db.CreateCredentialOfferParams{ID: uuid.New(), AssertionID: f.IDs[0],
		OrgID: f.OrgID, Mode: "live", TtlSeconds: 3600})
	require.NoError(t, err)
	copyOf := func(cfg, format, holder string, body []byte) db.WalletCredential {
		// Claimed as the credential endpoint claims: a fresh nonce, then the claim statement.
		sum := sha256.Sum256(body)
		nonce := "nonce-" + uuid.NewString()
		require.NoError(t, oneRow(f.DB.CreateWalletNonce(ctx, db.CreateWalletNonceParams{Nonce: nonce, TtlSeconds: 300, Client: "192.0.2.1", MaxLive: 100})))
		p := db.ClaimWalletCopyParams{Nonce: nonce, TokenHash: []byte("token-1"), OfferID: o.ID, ID: uuid.New(),
			AssertionID: f.IDs[0], OrgID: f.OrgID, ConfigurationID: cfg, Format: format, HolderDid: holder,
			Credential: body, CredentialSha256: sum[:], AnchorPending: true}
		p.NotificationID = "n-" + p.ID.String()
		c, err := f.DB.ClaimWalletCopy(ctx, p)
		require.NoError(t, err)
		require.NotNil(t, c.CreatedAt, "the copy is stored")
		return db.WalletCredential{ID: p.ID, TokenHash: p.TokenHash, ConfigurationID: cfg, Format: format,
			HolderDid: holder, NotificationID: p.NotificationID, CreatedAt: *c.CreatedAt}
	}
	ldp := copyOf("OpenBadgeCredential_ldp_vc", "ldp_vc", "did:key:z6MkholderA", []byte(`{"copy":"ldp"}`))
	jwt := copyOf("OpenBadgeCredential_jwt_vc_json", "jwt_vc_json", "did:jwk:eyJrdHkiOiJPS1AifQ", []byte(`"eyJ.e30.sig"`))
	event := "credential_accepted"
	n, err := f.DB.RecordWalletNotification(ctx, db.RecordWalletNotificationParams{NotificationID: jwt.NotificationID,
		TokenHash: jwt.TokenHash, NotificationEvent: &event})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)

	out, err := adminJSON(t, vars, "assertion", "copies", "--id", f.IDs[0].String())
	require.NoError(t, err)
	require.Equal(t, f.IDs[0].String(), out["assertionId"])
	copies := out["copies"].([]any)
	require.Len(t, copies, 2)
	byFormat := map[string]map[string]any{}
	for _, c := range copies {
		m := c.(map[string]any)
		byFormat[m["format"].(string)] = m
	}
	for _, want := range []db.WalletCredential{ldp, jwt} {
		got := byFormat[want.Format]
		require.NotNil(t, got, want.Format)
		require.Equal(t, "urn:uuid:"+want.ID.String(), got["id"])
		require.Equal(t, want.ConfigurationID, got["configurationId"])
		require.Equal(t, want.HolderDid, got["holderDid"])
		at, err := time.Parse(time.RFC3339, got["claimedAt"].(string))
		require.NoError(t, err)
		require.WithinDuration(t, want.CreatedAt, at, time.Second)
		require.Equal(t, "pending", got["anchor"], "a live copy waits for the wallet anchor sweep")
		require.Nil(t, got["receiptUrl"])
	}
	require.Equal(t, event, byFormat["jwt_vc_json"]["notificationEvent"])
	require.NotEmpty(t, byFormat["jwt_vc_json"]["notifiedAt"])
	require.Nil(t, byFormat["ldp_vc"]["notificationEvent"])

	none, err := adminJSON(t, vars, "assertion", "copies", "--id", f.IDs[1].String())
	require.NoError(t, err)
	require.Equal(t, []any{}, none["copies"], "no copies: an empty list, not null")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--id", "not-an-id"}, "assertion copies: --id must be an assertion id"},
		{nil, "assertion copies: --id must be an assertion id"},
		{[]string{"--id", uuid.NewString()}, "assertion copies: no assertion"},
		{[]string{"--id", f.IDs[0].String(), "extra"}, `unexpected argument "extra"`},
		{[]string{"--holder", "x"}, "flag provided but not defined: -holder"},
	} {
		_, err := adminJSON(t, vars, append([]string{"assertion", "copies"}, c.args...)...)
		require.ErrorContains(t, err, c.want, "%v", c.args)
	}
}

// TestAdminKeyringRewrap: after a rotation of ISSUER_KEY_RING (new entry first, old one kept), `admin keyring
// rewrap` re-seals the Ed25519 and RSA issuer keys under the new entry; with the old entry then dropped both keys
// still open, to the same keys, and VC-JWTs they sign verify with the published public keys. A second run
// finds nothing to do. A ring that is missing, malformed or lacks a key's entry is refused with the reason and no
// sealed key changes.
func TestAdminKeyringRewrap(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	org := uuid.New()
	_, err := d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: org, Name: "Rotating Org"})
	require.NoError(t, err)
	entry := func(id string) string {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		return id + ":" + base64.StdEncoding.EncodeToString(b)
	}
	// The Ed25519 key is sealed under k1, the RSA key under k0: a ring must hold both entries to rewrap.
	oldEntry, rsaEntry, newEntry := entry("k1"), entry("k0"), entry("k2")
	ring := func(spec string) *credential.Keyring {
		r, err := credential.NewKeyring(spec)
		require.NoError(t, err)
		return r
	}
	before := issuer.New(d, ring(oldEntry), "https://badges.example")
	ed, err := before.Key(ctx, org, "live")
	require.NoError(t, err)
	rsaKey, err := issuer.New(d, ring(rsaEntry), "https://badges.example").RSAKey(ctx, org, "test")
	require.NoError(t, err)
	sealed := func() map[string]string {
		rows, err := d.ListSealedIssuerKeys(ctx)
		require.NoError(t, err)
		m := map[string]string{}
		for _, r := range rows {
			m[r.Kind+"/"+r.Mode] = r.SealedKey
		}
		return m
	}
	original := sealed()
	require.Len(t, original, 2)
	vars := map[string]string{"DATABASE_URL": dbtest.URL(t, d), "LOG_LEVEL": "error", "PUBLIC_BASE_URL": "https://badges.example"}
	rewrap := func(spec string, args ...string) (map[string]any, error) {
		vars["ISSUER_KEY_RING"] = spec
		return adminJSON(t, vars, append([]string{"keyring", "rewrap"}, args...)...)
	}

	// Refusals first: nothing is written by any of them.
	for _, c := range []struct {
		spec string
		args []string
		want string
	}{
		{"", nil, "ISSUER_KEY_RING is required"},
		{"k2:not-base64!", nil, "ISSUER_KEY_RING:"},
		{entry("k3") + "," + newEntry, nil, `key "k1" is not in the keyring`}, // lacks both entries
		// Lacks k0 only: the Ed25519 key (listed first) could be rewrapped, but is not while the RSA key cannot.
		{newEntry + "," + oldEntry, nil, "rewrap rsa key of organization " + org.String() + ` (test): open: key "k0" is not in the keyring`},
		{newEntry + "," + oldEntry + "," + rsaEntry, []string{"--dry-run"}, "flag provided but not defined: -dry-run"},
	} {
		_, err := rewrap(c.spec, c.args...)
		require.ErrorContains(t, err, c.want, "%q %v", c.spec, c.args)
		require.Equal(t, original, sealed(), "a refused rewrap leaves every sealed key as it was")
	}

	rotated := newEntry + "," + oldEntry + "," + rsaEntry
	out, err := rewrap(rotated)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"ed25519": 1.0, "rsa": 1.0}, out["rewrapped"])
	require.Equal(t, map[string]any{}, out["current"])
	rewrapped := sealed()
	for k := range original {
		require.NotEqual(t, original[k], rewrapped[k], k)
	}
	again, err := rewrap(rotated)
	require.NoError(t, err)
	require.Equal(t, map[string]any{}, again["rewrapped"])
	require.Equal(t, map[string]any{"ed25519": 1.0, "rsa": 1.0}, again["current"])
	require.Equal(t, rewrapped, sealed())

	// The old entries dropped: a fresh service (nothing cached) opens both keys from the database to the same keys,
	// and what they sign verifies with the public keys verifiers are given.
	after := issuer.New(d, ring(newEntry), "https://badges.example")
	ed2, err := after.Key(ctx, org, "live")
	require.NoError(t, err)
	require.True(t, ed.Equal(ed2))
	rsa2, err := after.RSAKey(ctx, org, "test")
	require.NoError(t, err)
	require.True(t, rsaKey.Equal(rsa2))
	edPub, found, err := after.PublicKey(ctx, org, "live")
	require.NoError(t, err)
	require.True(t, found)
	rsaPub, found, err := after.RSAPublicKey(ctx, org, "test")
	require.NoError(t, err)
	require.True(t, found)
	for _, k := range []struct {
		signer crypto.Signer
		pub    any
		alg    jose.SignatureAlgorithm
	}{{ed2, edPub, jose.EdDSA}, {rsa2, rsaPub, jose.RS256}} {
		cred := map[string]any{"issuer": after.IssuerID(org, "live"), "id": "urn:uuid:" + uuid.NewString(),
			"validFrom": "2026-01-02T03:04:05Z", "credentialSubject": map[string]any{"id": "did:key:z6MkholderA"}}
		token, err := oid4vci.SignJWT(cred, k.signer, "kid-1")
		require.NoError(t, err)
		jws, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{k.alg})
		require.NoError(t, err, k.alg)
		payload, err := jws.Verify(k.pub)
		require.NoError(t, err, k.alg)
		require.Contains(t, string(payload), cred["id"].(string))
	}
}

// TestResendNotification_LapsedOffer: `admin notification resend` after the wallet offer's lifetime (its expires_at
// put in the past; the database's clock decides) sends a message whose link is a fresh offer; the lapsed offer
// stays, expired.
func TestResendNotification_LapsedOffer(t *testing.T) {
	ctx := context.Background()
	f := mustOpFixture(t, 3, "live", []opRecipient{{State: "RECEIVED", Step: "NOTIFIED", Published: true}})
	r, dir := newTestResender(t, f.DB)
	notificationOffer := func() uuid.UUID {
		t.Helper()
		var id uuid.UUID
		require.NoError(t, f.DB.Pool.QueryRow(ctx, `SELECT id FROM credential_offers WHERE assertion_id = $1 AND for_notification`, f.IDs[0]).Scan(&id))
		return id
	}
	mail := func(request string) string {
		t.Helper()
		for _, name := range outboxFiles(t, dir) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			// Undo the quoted-printable soft line breaks and "=3D", enough to search the text.
			if s := strings.NewReplacer("=\r\n", "", "=3D", "=").Replace(string(data)); strings.Contains(s, "-resend-"+request) {
				return s
			}
		}
		t.Fatalf("no message of request %s", request)
		return ""
	}

	_, err := r.Resend(ctx, f.IDs[0].String(), "T1")
	require.NoError(t, err)
	first := notificationOffer()
	require.Contains(t, mail("T1"), "/oid4vci/offers/"+first.String())
	_, err = f.DB.Pool.Exec(ctx, `UPDATE credential_offers SET expires_at = now() - interval '1 second' WHERE id = $1`, first)
	require.NoError(t, err)

	_, err = r.Resend(ctx, f.IDs[0].String(), "T2")
	require.NoError(t, err)
	fresh := notificationOffer()
	require.NotEqual(t, first, fresh)
	body := mail("T2")
	require.Contains(t, body, "/oid4vci/offers/"+fresh.String())
	require.NotContains(t, body, first.String())
	var expired bool
	require.NoError(t, f.DB.Pool.QueryRow(ctx, `SELECT expires_at <= now() FROM credential_offers WHERE id = $1`, first).Scan(&expired))
	require.True(t, expired, "the lapsed offer stays expired")
}

// oneRow is the error of a conditional insert (CreateWalletNonce, CreatePreauthCode) that must have made its row.
func oneRow(n int64, err error) error {
	if err == nil && n != 1 {
		err = fmt.Errorf("%d rows made, want 1", n)
	}
	return err
}
