package wallet_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/internal/oid4vci"
)

// testWallet is the holder side of OpenID4VCI, written against the protocol (not badged's code): an Ed25519 key
// named as did:key in its proofs.
type testWallet struct {
	key ed25519.PrivateKey
	did string
}

func newTestWallet(tb testing.TB) testWallet {
	tb.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(tb, err)
	did, err := oid4vci.DIDKey(pub)
	require.NoError(tb, err)
	return testWallet{key: priv, did: did}
}

// proofSpec is a key proof; zero fields take the honest values.
type proofSpec struct {
	typ    string
	kid    string // default: the wallet's did:key#fragment
	jwk    bool   // name the key as jwk instead of kid
	signer ed25519.PrivateKey
	aud    string
	nonce  string
	iat    time.Time
	alg    string // default EdDSA; "Ed25519" signs with the fully-specified name (RFC 9864), which go-jose cannot
}

func (wl testWallet) proof(tb testing.TB, p proofSpec) string {
	tb.Helper()
	if p.typ == "" {
		p.typ = oid4vci.ProofType
	}
	if p.signer == nil {
		p.signer = wl.key
	}
	if p.iat.IsZero() {
		p.iat = time.Now()
	}
	if p.alg == "Ed25519" {
		return wl.ed25519Proof(tb, p)
	}
	opts := (&jose.SignerOptions{}).WithType(jose.ContentType(p.typ))
	if p.jwk {
		opts = opts.WithHeader("jwk", jose.JSONWebKey{Key: wl.key.Public()})
	} else {
		if p.kid == "" {
			p.kid = wl.did + "#" + strings.TrimPrefix(wl.did, "did:key:")
		}
		opts = opts.WithHeader("kid", p.kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: p.signer}, opts)
	require.NoError(tb, err)
	claims := map[string]any{"aud": p.aud, "iat": p.iat.Unix()}
	if p.nonce != "" {
		claims["nonce"] = p.nonce
	}
	payload, err := json.Marshal(claims)
	require.NoError(tb, err)
	obj, err := s.Sign(payload)
	require.NoError(tb, err)
	out, err := obj.CompactSerialize()
	require.NoError(tb, err)
	return out
}

// baseURL is the public base of the test server (apitest.BaseURL): the URLs in its answers start with it.
const baseURL = apitest.BaseURL

// ed25519Proof is proof with alg Ed25519, signed by hand as RFC 7515 §5.1 says (go-jose knows only EdDSA).
func (wl testWallet) ed25519Proof(tb testing.TB, p proofSpec) string {
	tb.Helper()
	header := map[string]any{"alg": "Ed25519", "typ": p.typ}
	if p.jwk {
		header["jwk"] = jose.JSONWebKey{Key: wl.key.Public()}
	} else {
		if p.kid == "" {
			p.kid = wl.did + "#" + strings.TrimPrefix(wl.did, "did:key:")
		}
		header["kid"] = p.kid
	}
	claims := map[string]any{"aud": p.aud, "iat": p.iat.Unix()}
	if p.nonce != "" {
		claims["nonce"] = p.nonce
	}
	h, err := json.Marshal(header)
	require.NoError(tb, err)
	c, err := json.Marshal(claims)
	require.NoError(tb, err)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	return input + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(p.signer, []byte(input)))
}

// walletFixture is the whole API (apitest) with one signed, unexpired assertion of its organization, ready to be
// offered.
type walletFixture struct {
	*apitest.Env
	assertion uuid.UUID
}

func newWalletFixture(tb testing.TB) *walletFixture {
	tb.Helper()
	e := apitest.New(tb)
	return &walletFixture{Env: e, assertion: e.IssueSigned(tb, "Kim Wallet", "kim.wallet@example.com")}
}

// offer creates an offer with the manager key and returns its data.
func (f *walletFixture) offer(tb testing.TB, body string) map[string]any {
	tb.Helper()
	r := f.Do(tb, http.MethodPost, "/public/v3/assertions/"+f.assertion.String()+"/credential-offers", f.Keys["manager"], body)
	require.Equal(tb, http.StatusCreated, r.Status, "%s", r.Raw)
	return r.Body["data"].(map[string]any)
}

// protocol sends a protocol request and decodes its JSON answer (nil when it has none).
func (f *walletFixture) protocol(tb testing.TB, method, path, contentType, bearer, body string) (int, http.Header, map[string]any) {
	tb.Helper()
	req, err := http.NewRequest(method, f.Local(path), strings.NewReader(body))
	require.NoError(tb, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(tb, err)
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, res.Header, out
}

// fetchOffer fetches the offer URI and returns the credential offer.
func (f *walletFixture) fetchOffer(tb testing.TB, uri string) map[string]any {
	tb.Helper()
	st, _, body := f.protocol(tb, http.MethodGet, uri, "", "", "")
	require.Equal(tb, http.StatusOK, st, "%v", body)
	return body
}

func preAuthCode(tb testing.TB, offer map[string]any) string {
	tb.Helper()
	return jstr(tb, offer, "grants.urn:ietf:params:oauth:grant-type:pre-authorized_code.pre-authorized_code")
}

// tokenFor redeems a code (with tx, when not "") at the token endpoint.
func (f *walletFixture) tokenFor(tb testing.TB, code, tx string) (int, map[string]any) {
	tb.Helper()
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:pre-authorized_code"}, "pre-authorized_code": {code}}
	if tx != "" {
		form.Set("tx_code", tx)
	}
	st, _, body := f.protocol(tb, http.MethodPost, baseURL+"/oid4vci/token", "application/x-www-form-urlencoded", "", form.Encode())
	return st, body
}

// freshNonce asks the nonce endpoint, as the test's own client (127.0.0.1).
func (f *walletFixture) freshNonce(tb testing.TB) string {
	tb.Helper()
	st, _, body := f.nonceAs(tb, f.Srv.URL, "")
	require.Equal(tb, http.StatusOK, st, "%v", body)
	return body["c_nonce"].(string)
}

// nonceAs asks the nonce endpoint of server (a test server's URL) as client: the test's requests come from the
// loopback address, which counts as the deployment's proxy, so X-Forwarded-For names the client (web.ClientAddr);
// "" sends none (the client is 127.0.0.1).
func (f *walletFixture) nonceAs(tb testing.TB, server, client string) (int, http.Header, map[string]any) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, server+"/oid4vci/nonce", nil)
	require.NoError(tb, err)
	if client != "" {
		req.Header.Set("X-Forwarded-For", client)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(tb, err)
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, res.Header, out
}

// credentialRequest sends a credential request with one jwt proof.
func (f *walletFixture) credentialRequest(tb testing.TB, token, cfg, proof string) (int, http.Header, map[string]any) {
	tb.Helper()
	b, err := json.Marshal(map[string]any{"credential_configuration_id": cfg, "proofs": map[string]any{"jwt": []string{proof}}})
	require.NoError(tb, err)
	return f.protocol(tb, http.MethodPost, baseURL+"/oid4vci/credential", "application/json", token, string(b))
}

// accessToken runs offer fetch and token for a fresh offer and returns the access token and the issuer id.
func (f *walletFixture) accessToken(tb testing.TB) (token, issuerID string) {
	tb.Helper()
	o := f.fetchOffer(tb, jstr(tb, f.offer(tb, ""), "credentialOfferUri"))
	st, body := f.tokenFor(tb, preAuthCode(tb, o), "")
	require.Equal(tb, http.StatusOK, st, "%v", body)
	return body["access_token"].(string), o["credential_issuer"].(string)
}

func (f *walletFixture) copies(tb testing.TB) int {
	tb.Helper()
	var n int
	require.NoError(tb, f.DB.Pool.QueryRow(context.Background(), "SELECT count(*) FROM wallet_credentials").Scan(&n))
	return n
}

// The JSON walkers of the API's tests.
var (
	jget = apitest.JGet
	jstr = apitest.JStr
)
