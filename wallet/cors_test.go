package wallet_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// webWallet sends requests as a page of another origin does (Origin set) and reads the CORS answer.
type webWallet struct {
	f *walletFixture
}

const webWalletOrigin = "https://web-wallet.example"

// preflight asks whether the page may send method with the given request headers to u.
func (ww webWallet) preflight(t *testing.T, u, method, headers string) http.Header {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, ww.f.Local(u), nil)
	require.NoError(t, err)
	req.Header.Set("Origin", webWalletOrigin)
	req.Header.Set("Access-Control-Request-Method", method)
	req.Header.Set("Access-Control-Request-Headers", headers)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusNoContent, res.StatusCode, "%s %s", method, u)
	return res.Header
}

// send makes the request itself, with Origin, and checks the page may read the answer.
func (ww webWallet) send(t *testing.T, method, u string, header map[string]string, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, ww.f.Local(u), strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Origin", webWalletOrigin)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"), "%s %s", method, u)
	require.Empty(t, res.Header.Get("Access-Control-Allow-Credentials"), "%s %s: never with cookies", method, u)
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, res.Header, out
}

// TestCORS_WalletRoutes: a web wallet in a page of another origin may call every endpoint of a claim (the issuer
// and authorization server metadata, the offer URI, token, nonce, credential and notification endpoints, and the
// VC-API exchange): each preflight names the method and headers it needs, and each answer (a refusal included,
// with its WWW-Authenticate exposed) carries Access-Control-Allow-Origin. The keyed API stays refused (TestCORS).
func TestCORS_WalletRoutes(t *testing.T) {
	f := newWalletFixture(t)
	wl := newTestWallet(t)
	ww := webWallet{f: f}
	data := f.offer(t, "")
	org := f.Org.ID.String()
	metaURL := baseURL + "/.well-known/openid-credential-issuer/issuers/" + org
	asURL := baseURL + "/.well-known/oauth-authorization-server/issuers/" + org

	for _, c := range []struct{ url, method, headers string }{
		{metaURL, http.MethodGet, "accept, accept-language"},
		{asURL, http.MethodGet, "accept"},
		{jstr(t, data, "credentialOfferUri"), http.MethodGet, "accept"},
		{baseURL + "/oid4vci/token", http.MethodPost, "content-type"},
		{baseURL + "/oid4vci/nonce", http.MethodPost, "content-type"},
		{baseURL + "/oid4vci/credential", http.MethodPost, "authorization, content-type"},
		{baseURL + "/oid4vci/notification", http.MethodPost, "authorization, content-type"},
		{jstr(t, data, "exchangeUrl"), http.MethodPost, "content-type"},
	} {
		h := ww.preflight(t, c.url, c.method, c.headers)
		require.Equal(t, "*", h.Get("Access-Control-Allow-Origin"), c.url)
		require.Contains(t, h.Get("Access-Control-Allow-Methods"), c.method, c.url)
		for _, name := range strings.Split(c.headers, ", ") {
			require.Contains(t, strings.ToLower(h.Get("Access-Control-Allow-Headers")), name, c.url)
		}
		require.Empty(t, h.Get("Access-Control-Allow-Credentials"), c.url)
	}

	// A whole claim from the page.
	st, _, meta := ww.send(t, http.MethodGet, metaURL, nil, "")
	require.Equal(t, http.StatusOK, st)
	st, _, _ = ww.send(t, http.MethodGet, asURL, nil, "")
	require.Equal(t, http.StatusOK, st)
	st, _, offer := ww.send(t, http.MethodGet, jstr(t, data, "credentialOfferUri"), nil, "")
	require.Equal(t, http.StatusOK, st)
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:pre-authorized_code"}, "pre-authorized_code": {preAuthCode(t, offer)}}
	st, _, tok := ww.send(t, http.MethodPost, baseURL+"/oid4vci/token",
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form.Encode())
	require.Equal(t, http.StatusOK, st, "%v", tok)
	st, _, n := ww.send(t, http.MethodPost, baseURL+"/oid4vci/nonce", nil, "")
	require.Equal(t, http.StatusOK, st)
	proof := wl.proof(t, proofSpec{aud: jstr(t, meta, "credential_issuer"), nonce: n["c_nonce"].(string)})
	body, err := json.Marshal(map[string]any{"credential_configuration_id": cfgLDP, "proofs": map[string]any{"jwt": []string{proof}}})
	require.NoError(t, err)
	jsonAuth := func(token string) map[string]string {
		return map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + token}
	}

	st, hdr, refusal := ww.send(t, http.MethodPost, baseURL+"/oid4vci/credential", jsonAuth("not-a-token"), string(body))
	require.Equal(t, http.StatusUnauthorized, st)
	require.Equal(t, "invalid_token", refusal["error"])
	require.NotEmpty(t, hdr.Get("WWW-Authenticate"))
	require.Contains(t, hdr.Get("Access-Control-Expose-Headers"), "WWW-Authenticate", "the page may read the challenge")

	st, _, cred := ww.send(t, http.MethodPost, baseURL+"/oid4vci/credential", jsonAuth(tok["access_token"].(string)), string(body))
	require.Equal(t, http.StatusOK, st, "%v", cred)
	require.Equal(t, wl.did, jstr(t, cred, "credentials.0.credential.credentialSubject.id"))
	note, err := json.Marshal(map[string]string{"notification_id": cred["notification_id"].(string), "event": "credential_accepted"})
	require.NoError(t, err)
	st, _, _ = ww.send(t, http.MethodPost, baseURL+"/oid4vci/notification", jsonAuth(tok["access_token"].(string)), string(note))
	require.Equal(t, http.StatusNoContent, st)
	require.Equal(t, 1, f.copies(t))
}
