package wallet_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWallet_Refusals: every refusal of the credential and token endpoints answers the spec's error (never a 5xx)
// and writes nothing: no copy, the offer not used, the nonce (when a real one) still usable.
func TestWallet_Refusals(t *testing.T) {
	f := newWalletFixture(t)
	wl := newTestWallet(t)
	token, iss := f.accessToken(t)
	_, other, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	ctx := context.Background()

	cases := []struct {
		name   string
		cfg    string
		proof  func(nonce string) string
		status int
		code   string
	}{
		{"another key than the one named", cfgLDP, func(n string) string {
			return wl.proof(t, proofSpec{aud: iss, nonce: n, signer: other})
		}, 400, "invalid_proof"},
		{"made-up nonce", cfgLDP, func(string) string { return wl.proof(t, proofSpec{aud: iss, nonce: "made-up-nonce"}) }, 400, "invalid_nonce"},
		{"no nonce", cfgLDP, func(string) string { return wl.proof(t, proofSpec{aud: iss}) }, 400, "invalid_nonce"},
		{"another audience", cfgLDP, func(n string) string {
			return wl.proof(t, proofSpec{aud: baseURL + "/issuers/" + f.Other.ID.String(), nonce: n})
		}, 400, "invalid_proof"},
		{"stale iat", cfgLDP, func(n string) string {
			return wl.proof(t, proofSpec{aud: iss, nonce: n, iat: time.Now().Add(-time.Hour)})
		}, 400, "invalid_proof"},
		{"iat in the future", cfgLDP, func(n string) string {
			return wl.proof(t, proofSpec{aud: iss, nonce: n, iat: time.Now().Add(time.Hour)})
		}, 400, "invalid_proof"},
		{"wrong typ", cfgLDP, func(n string) string { return wl.proof(t, proofSpec{aud: iss, nonce: n, typ: "JWT"}) }, 400, "invalid_proof"},
		{"kid of an unresolvable DID", cfgLDP, func(n string) string {
			return wl.proof(t, proofSpec{aud: iss, nonce: n, kid: "did:web:example.com#key-1"})
		}, 400, "invalid_proof"},
		{"unknown configuration", "OpenBadgeCredential_mso_mdoc", func(n string) string { return wl.proof(t, proofSpec{aud: iss, nonce: n}) },
			400, "unsupported_credential_configuration"},
		{"not a JWT", cfgLDP, func(string) string { return "not.a.jwt" }, 400, "invalid_proof"},
		{"1 MB proof", cfgLDP, func(string) string { return strings.Repeat("A", 1<<20) }, 400, "invalid_credential_request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nonce := f.freshNonce(t)
			st, _, body := f.credentialRequest(t, token, c.cfg, c.proof(nonce))
			require.Equal(t, c.status, st, "%v", body)
			require.Equal(t, c.code, body["error"], "%v", body)
			require.NotEmpty(t, body["error_description"])
			require.Zero(t, f.copies(t), "nothing written")
			var used *time.Time
			require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT max(used_at) FROM credential_offers").Scan(&used))
			require.Nil(t, used, "the offer is not used")
			var left int
			require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM wallet_nonces WHERE nonce = $1", nonce).Scan(&left))
			require.Equal(t, 1, left, "the nonce is not consumed")
		})
	}

	t.Run("replayed nonce", func(t *testing.T) {
		nonce := f.freshNonce(t)
		st, _, body := f.credentialRequest(t, token, cfgEdDSA, wl.proof(t, proofSpec{aud: iss, nonce: nonce}))
		require.Equal(t, http.StatusOK, st, "%v", body)
		st, _, body = f.credentialRequest(t, token, cfgRS256, wl.proof(t, proofSpec{aud: iss, nonce: nonce}))
		require.Equal(t, http.StatusBadRequest, st)
		require.Equal(t, "invalid_nonce", body["error"])
		require.Equal(t, 1, f.copies(t))
	})
	t.Run("expired nonce", func(t *testing.T) {
		nonce := f.freshNonce(t)
		_, err := f.DB.Pool.Exec(ctx, "UPDATE wallet_nonces SET expires_at = now() - interval '1 second' WHERE nonce = $1", nonce)
		require.NoError(t, err)
		st, _, body := f.credentialRequest(t, token, cfgRS256, wl.proof(t, proofSpec{aud: iss, nonce: nonce}))
		require.Equal(t, http.StatusBadRequest, st)
		require.Equal(t, "invalid_nonce", body["error"])
		require.Equal(t, 1, f.copies(t))
	})
	t.Run("a jwk instead of a kid is bound as did:jwk", func(t *testing.T) {
		st, _, body := f.credentialRequest(t, token, cfgRS256, wl.proof(t, proofSpec{aud: iss, nonce: f.freshNonce(t), jwk: true}))
		require.Equal(t, http.StatusOK, st, "%v", body)
	})
	t.Run("alg Ed25519 (RFC 9864) and its refusals", func(t *testing.T) {
		nonce := f.freshNonce(t)
		st, _, body := f.credentialRequest(t, token, cfgLDP, wl.proof(t, proofSpec{aud: iss, nonce: nonce, alg: "Ed25519", signer: other}))
		require.Equal(t, http.StatusBadRequest, st, "%v", body)
		require.Equal(t, "invalid_proof", body["error"], "signed by another key than the one named")
		st, _, body = f.credentialRequest(t, token, cfgLDP, wl.proof(t, proofSpec{aud: iss, nonce: nonce, alg: "Ed25519"}))
		require.Equal(t, http.StatusOK, st, "%v", body)
		require.Equal(t, wl.did, jstr(t, body, "credentials.0.credential.credentialSubject.id"))
	})
	t.Run("bad access tokens", func(t *testing.T) {
		for _, tok := range []string{"", "made-up"} {
			st, hdr, body := f.credentialRequest(t, tok, cfgLDP, wl.proof(t, proofSpec{aud: iss, nonce: f.freshNonce(t)}))
			require.Equal(t, http.StatusUnauthorized, st)
			require.Equal(t, "invalid_token", body["error"])
			require.True(t, strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer "), hdr.Get("WWW-Authenticate"))
		}
		_, err := f.DB.Pool.Exec(ctx, "UPDATE wallet_access_tokens SET expires_at = now() - interval '1 second'")
		require.NoError(t, err)
		st, _, body := f.credentialRequest(t, token, cfgLDP, wl.proof(t, proofSpec{aud: iss, nonce: f.freshNonce(t)}))
		require.Equal(t, http.StatusUnauthorized, st)
		require.Equal(t, "invalid_token", body["error"])
	})
	require.Equal(t, 3, f.copies(t))
}

// TestWallet_TokenRefusals: codes are single use and short-lived, the tx_code is checked (a missing one is
// invalid_request and leaves the code usable, a wrong one is invalid_grant and uses it up), a tx_code where none is
// asked is invalid_request, a withdrawn offer mints nothing and its tokens stop working.
func TestWallet_TokenRefusals(t *testing.T) {
	f := newWalletFixture(t)
	ctx := context.Background()
	uri := jstr(t, f.offer(t, ""), "credentialOfferUri")

	code := preAuthCode(t, f.fetchOffer(t, uri))
	st, body := f.tokenFor(t, code, "")
	require.Equal(t, http.StatusOK, st, "%v", body)
	st, body = f.tokenFor(t, code, "")
	require.Equal(t, http.StatusBadRequest, st, "a replayed code")
	require.Equal(t, "invalid_grant", body["error"])

	code = preAuthCode(t, f.fetchOffer(t, uri))
	_, err := f.DB.Pool.Exec(ctx, "UPDATE preauth_codes SET expires_at = now() - interval '1 second' WHERE used_at IS NULL")
	require.NoError(t, err)
	st, body = f.tokenFor(t, code, "")
	require.Equal(t, http.StatusBadRequest, st, "an expired code")
	require.Equal(t, "invalid_grant", body["error"])

	st, body = f.tokenFor(t, "made-up", "")
	require.Equal(t, http.StatusBadRequest, st)
	require.Equal(t, "invalid_grant", body["error"])

	st, _, body = f.protocol(t, http.MethodPost, baseURL+"/oid4vci/token", "application/x-www-form-urlencoded", "",
		"grant_type=authorization_code&code=x")
	require.Equal(t, http.StatusBadRequest, st)
	require.Equal(t, "unsupported_grant_type", body["error"])

	// tx_code.
	withTx := f.offer(t, `{"txCode":true}`)
	tx := jstr(t, withTx, "txCode")
	require.Len(t, tx, 6)
	offer := f.fetchOffer(t, jstr(t, withTx, "credentialOfferUri"))
	require.EqualValues(t, 6, jget(t, offer, "grants.urn:ietf:params:oauth:grant-type:pre-authorized_code.tx_code.length"))
	code = preAuthCode(t, offer)
	wrong := wrongGuesses(tx, 1)[0]
	// Missing (OID4VCI 1.0 §6.3: invalid_request, "ask the user"): the code is not used up, nor a guess counted.
	st, body = f.tokenFor(t, code, "")
	require.Equal(t, http.StatusBadRequest, st, "%v", body)
	require.Equal(t, "invalid_request", body["error"], "%v", body)
	require.Contains(t, body["error_description"], "asks for a tx_code")
	// Wrong: invalid_grant, and the code is used up.
	st, body = f.tokenFor(t, code, wrong)
	require.Equal(t, http.StatusBadRequest, st, "%v", body)
	require.Equal(t, "invalid_grant", body["error"], "%v", body)
	st, body = f.tokenFor(t, code, tx)
	require.Equal(t, "invalid_grant", body["error"], "a wrong tx_code used the code up (%d)", st)
	// Missing, then the right one with the same code: a token.
	code = preAuthCode(t, f.fetchOffer(t, jstr(t, withTx, "credentialOfferUri")))
	st, body = f.tokenFor(t, code, "")
	require.Equal(t, "invalid_request", body["error"], "%d", st)
	st, body = f.tokenFor(t, code, tx)
	require.Equal(t, http.StatusOK, st, "%v", body)
	require.NotContains(t, body, "c_nonce", "the nonce endpoint gives nonces (OpenID4VCI 1.0)")
	var failures int
	require.NoError(t, f.DB.Pool.QueryRow(context.Background(), "SELECT tx_code_failures FROM credential_offers WHERE id = $1",
		jstr(t, withTx, "id")).Scan(&failures))
	require.Equal(t, 1, failures, "only the wrong tx_code counted")

	// A tx_code for an offer that asks none: invalid_request, and the code stays usable without one.
	code = preAuthCode(t, f.fetchOffer(t, uri))
	st, body = f.tokenFor(t, code, "123456")
	require.Equal(t, http.StatusBadRequest, st, "%v", body)
	require.Equal(t, "invalid_request", body["error"], "%v", body)
	st, body = f.tokenFor(t, code, "")
	require.Equal(t, http.StatusOK, st, "%v", body)

	// Withdrawn: the URI mints nothing, a code fetched before fails, the token stops working.
	data := f.offer(t, "")
	uri = jstr(t, data, "credentialOfferUri")
	code = preAuthCode(t, f.fetchOffer(t, uri))
	early := preAuthCode(t, f.fetchOffer(t, uri))
	st, body = f.tokenFor(t, code, "")
	require.Equal(t, http.StatusOK, st)
	token := body["access_token"].(string)
	r := f.Do(t, http.MethodDelete, "/public/v3/assertions/"+f.assertion.String()+"/credential-offers/"+jstr(t, data, "id"), f.Keys["manager"], "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	st, _, _ = f.protocol(t, http.MethodGet, uri, "", "", "")
	require.Equal(t, http.StatusGone, st)
	st, body = f.tokenFor(t, early, "")
	require.Equal(t, "invalid_grant", body["error"], "%d", st)
	wl := newTestWallet(t)
	st, _, body = f.credentialRequest(t, token, cfgLDP, wl.proof(t, proofSpec{aud: baseURL + "/issuers/" + f.Org.ID.String(), nonce: f.freshNonce(t)}))
	require.Equal(t, http.StatusUnauthorized, st)
	require.Equal(t, "invalid_token", body["error"])
	require.Zero(t, f.copies(t))

	// The keyed API's own refusals of offers are api's (api/offers_test.go).
}
