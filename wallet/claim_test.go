package wallet_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
)

const (
	cfgLDP   = "OpenBadgeCredential_ldp_vc"
	cfgRS256 = "OpenBadgeCredential_jwt_vc_json"
	cfgEdDSA = "OpenBadgeCredential_jwt_vc_json_EdDSA"
)

// getJSON fetches a public document of the test server.
func (f *walletFixture) getJSON(tb testing.TB, u string) (int, []byte) {
	tb.Helper()
	res, err := http.Get(f.Local(u))
	require.NoError(tb, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	return res.StatusCode, b
}

// TestWallet_ClaimEveryConfiguration walks the pre-authorized code flow as a wallet does: the offer from the API,
// the offer URI, the issuer and authorization server metadata, the token, a nonce per request, and one copy of each
// configuration with one access token; each copy is verified and bound to the wallet's key, keeps the hashed
// recipient and the assertion's status entry, and is revoked when the assertion is cancelled.
func TestWallet_ClaimEveryConfiguration(t *testing.T) {
	f := newWalletFixture(t)
	wl := newTestWallet(t)
	data := f.offer(t, "")
	uri := jstr(t, data, "credentialOfferUri")
	require.Equal(t, "openid-credential-offer://?credential_offer_uri="+strings.ReplaceAll(strings.ReplaceAll(uri, ":", "%3A"), "/", "%2F"), jstr(t, data, "offer"))
	require.Nil(t, data["txCode"])
	offer := f.fetchOffer(t, uri)
	iss := offer["credential_issuer"].(string)
	require.Equal(t, baseURL+"/issuers/"+f.Org.ID.String(), iss)
	require.ElementsMatch(t, []any{cfgLDP, cfgRS256, cfgEdDSA}, offer["credential_configuration_ids"])

	st, raw := f.getJSON(t, baseURL+"/.well-known/openid-credential-issuer/issuers/"+f.Org.ID.String())
	require.Equal(t, http.StatusOK, st, "%s", raw)
	var meta map[string]any
	require.NoError(t, json.Unmarshal(raw, &meta))
	require.Equal(t, iss, meta["credential_issuer"])
	for _, cfg := range []string{cfgLDP, cfgRS256, cfgEdDSA} {
		require.NotNil(t, jget(t, meta, "credential_configurations_supported."+cfg+".format"), cfg)
		require.Equal(t, []any{"Ed25519", "EdDSA", "ES256"},
			jget(t, meta, "credential_configurations_supported."+cfg+".proof_types_supported.jwt.proof_signing_alg_values_supported"), cfg)
		// display twice: under credential_metadata (1.0) and at the top (Implementer's Draft 2 wallets).
		require.Equal(t, jget(t, meta, "credential_configurations_supported."+cfg+".credential_metadata.display"),
			jget(t, meta, "credential_configurations_supported."+cfg+".display"), cfg)
	}
	require.Equal(t, "ko", jstr(t, meta, "display.0.locale"))
	st, raw = f.getJSON(t, baseURL+"/.well-known/oauth-authorization-server/issuers/"+f.Org.ID.String())
	require.Equal(t, http.StatusOK, st)
	var as map[string]any
	require.NoError(t, json.Unmarshal(raw, &as))
	require.Equal(t, iss, as["issuer"])
	require.Equal(t, baseURL+"/oid4vci/token", as["token_endpoint"])

	code := preAuthCode(t, offer)
	st, tok := f.tokenFor(t, code, "")
	require.Equal(t, http.StatusOK, st, "%v", tok)
	token := tok["access_token"].(string)
	require.Equal(t, "Bearer", tok["token_type"])

	claim := func(cfg string) map[string]any {
		st, _, body := f.credentialRequest(t, token, cfg, wl.proof(t, proofSpec{aud: iss, nonce: f.freshNonce(t)}))
		require.Equal(t, http.StatusOK, st, "%s: %v", cfg, body)
		require.NotEmpty(t, body["notification_id"])
		return body
	}
	ctx := context.Background()
	original, _, err := f.Store.Get(ctx, "credentials/"+f.assertion.String()+".json")
	require.NoError(t, err)
	var orig map[string]any
	require.NoError(t, json.NewDecoder(original).Decode(&orig))
	original.Close()

	// ldp_vc: eddsa-rdfc-2022 by the organization's key, as published at the issuer id.
	ldp := claim(cfgLDP)
	ldpRaw, err := json.Marshal(jget(t, ldp, "credentials.0.credential"))
	require.NoError(t, err)
	st, ctrl := f.getJSON(t, iss)
	require.Equal(t, http.StatusOK, st)
	res, err := credential.NewStaticResolver(ctrl)
	require.NoError(t, err)
	_, err = credential.Verify(ctx, ldpRaw, res)
	require.NoError(t, err, "the ldp_vc copy verifies with the issuer's key")
	var ldpDoc map[string]any
	require.NoError(t, json.Unmarshal(ldpRaw, &ldpDoc))
	require.Equal(t, wl.did, jstr(t, ldpDoc, "credentialSubject.id"))
	require.Equal(t, jget(t, orig, "credentialSubject.identifier"), jget(t, ldpDoc, "credentialSubject.identifier"), "the hashed recipient stays")
	require.Equal(t, orig["credentialStatus"], ldpDoc["credentialStatus"], "the assertion's status entry")
	require.True(t, strings.HasPrefix(ldpDoc["id"].(string), "urn:uuid:"))
	require.NotEqual(t, orig["id"], ldpDoc["id"])

	// jwt_vc_json, RS256 and EdDSA: verified with the issuer's published JWKS, claims as OB 3.0 asks.
	st, _ = f.getJSON(t, iss+"/jwks")
	require.Equal(t, http.StatusOK, st)
	for _, cfg := range []string{cfgRS256, cfgEdDSA} {
		body := claim(cfg)
		compact := jstr(t, body, "credentials.0.credential")
		var jwks jose.JSONWebKeySet
		st, jwksRaw := f.getJSON(t, iss+"/jwks")
		require.Equal(t, http.StatusOK, st)
		require.NoError(t, json.Unmarshal(jwksRaw, &jwks))
		jws, err := jose.ParseSigned(compact, []jose.SignatureAlgorithm{jose.RS256, jose.EdDSA})
		require.NoError(t, err)
		kid := jws.Signatures[0].Header.KeyID
		keys := jwks.Key(kid)
		require.Len(t, keys, 1, "kid %s is in the issuer's JWKS", kid)
		want := map[string]string{cfgRS256: "RS256", cfgEdDSA: "EdDSA"}[cfg]
		require.Equal(t, want, jws.Signatures[0].Header.Algorithm)
		payload, err := jws.Verify(keys[0].Key)
		require.NoError(t, err)
		var claims map[string]any
		require.NoError(t, json.Unmarshal(payload, &claims))
		require.Equal(t, iss, claims["iss"])
		require.Equal(t, wl.did, claims["sub"])
		require.Equal(t, claims["id"], claims["jti"])
		require.NotNil(t, claims["nbf"])
		require.NotNil(t, claims["exp"], "the assertion expires")
		require.Equal(t, orig["credentialStatus"], claims["credentialStatus"])
		st, kraw := f.getJSON(t, kid)
		require.Equal(t, http.StatusOK, st, "the kid dereferences to its JWK")
		require.Contains(t, string(kraw), `"kid":"`+kid+`"`)
	}
	require.Equal(t, 3, f.copies(t))
	detail := f.MustOK(t, http.MethodGet, "/public/v3/assertions/"+f.assertion.String(), f.Keys["viewer"], "")
	copies := jget(t, detail, "walletCopies").([]any)
	require.Len(t, copies, 3)
	require.Equal(t, wl.did, jstr(t, copies[0], "holderDid"))
	require.Equal(t, "ldp_vc", jstr(t, copies[0], "format"))
	v2 := f.MustOK(t, http.MethodGet, "/public/v2/assertions/"+f.assertion.String(), f.Keys["viewer"], "")
	require.NotContains(t, v2, "walletCopies", "v2 unchanged")

	// The same configuration twice on one token, and the used offer: refused, nothing written.
	st, _, body := f.credentialRequest(t, token, cfgLDP, wl.proof(t, proofSpec{aud: iss, nonce: f.freshNonce(t)}))
	require.Equal(t, http.StatusBadRequest, st)
	require.Equal(t, "invalid_credential_request", body["error"])
	st, _, _ = f.protocol(t, http.MethodGet, uri, "", "", "")
	require.Equal(t, http.StatusGone, st, "a used offer mints no code")
	require.Equal(t, 3, f.copies(t))

	// Notification.
	st, _, _ = f.protocol(t, http.MethodPost, baseURL+"/oid4vci/notification", "application/json", token,
		`{"notification_id":"`+ldp["notification_id"].(string)+`","event":"credential_accepted"}`)
	require.Equal(t, http.StatusNoContent, st)
	st, _, body = f.protocol(t, http.MethodPost, baseURL+"/oid4vci/notification", "application/json", token,
		`{"notification_id":"made-up","event":"credential_accepted"}`)
	require.Equal(t, http.StatusBadRequest, st)
	require.Equal(t, "invalid_notification_id", body["error"])

	// Cancelling the assertion revokes every copy (the same status entry) and ends the token.
	r := f.Do(t, http.MethodPost, "/public/v3/assertions/"+f.assertion.String()+"/cancel", f.Keys["manager"], "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	list := jstr(t, ldpDoc, "credentialStatus.statusListCredential")
	st, listRaw := f.getJSON(t, list)
	require.Equal(t, http.StatusOK, st)
	revoked, err := credential.CheckStatus(ldpRaw, listRaw)
	require.NoError(t, err)
	require.True(t, revoked, "the wallet copy reads as revoked")
	st, hdr, body := f.credentialRequest(t, token, cfgLDP, wl.proof(t, proofSpec{aud: iss, nonce: f.freshNonce(t)}))
	require.Equal(t, http.StatusUnauthorized, st, "%v", body)
	require.Contains(t, hdr.Get("WWW-Authenticate"), `error="invalid_token"`)
	_ = time.Now
}
