package wallet_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mr-tron/base58"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
)

// didAuth is a DIDAuthentication presentation of the test wallet's did:key, signed here the way the Learner
// Credential Wallet's suite does (Ed25519Signature2020: SHA-256 of the canonical proof options with the
// presentation's @context, then of the canonical presentation; wallet/testdata/node/exchange.mjs signs with Digital
// Bazaar's own libraries). signer signs in place of the wallet's key when set.
func (wl testWallet) didAuth(tb testing.TB, challenge, domain string, signer ed25519.PrivateKey) map[string]any {
	tb.Helper()
	vp := map[string]any{"@context": []any{credential.ContextCredentialsV1, credential.ContextEd25519Sig2020},
		"type": []any{"VerifiablePresentation"}, "holder": wl.did}
	proof := map[string]any{"type": "Ed25519Signature2020", "created": "2026-01-01T00:00:00Z", "proofPurpose": "authentication",
		"verificationMethod": wl.did + "#" + strings.TrimPrefix(wl.did, "did:key:"), "challenge": challenge}
	if domain != "" {
		proof["domain"] = domain
	}
	cfg := map[string]any{"@context": vp["@context"]}
	for k, v := range proof {
		cfg[k] = v
	}
	ctx := context.Background()
	c1, err := credential.Canonicalize(ctx, cfg, credential.PresentationLimits)
	require.NoError(tb, err)
	c2, err := credential.Canonicalize(ctx, vp, credential.PresentationLimits)
	require.NoError(tb, err)
	h1, h2 := sha256.Sum256([]byte(c1)), sha256.Sum256([]byte(c2))
	if signer == nil {
		signer = wl.key
	}
	proof["proofValue"] = "z" + base58.Encode(ed25519.Sign(signer, append(h1[:], h2[:]...)))
	vp["proof"] = proof
	return vp
}

// post sends a JSON body to an exchange URL and decodes the answer.
func (f *walletFixture) post(tb testing.TB, exchangeURL string, body any) (int, http.Header, map[string]any) {
	tb.Helper()
	b, ok := body.(string)
	if !ok {
		raw, err := json.Marshal(body)
		require.NoError(tb, err)
		b = string(raw)
	}
	return f.protocol(tb, http.MethodPost, exchangeURL, "application/json", "", b)
}

// vpr starts an exchange and returns the presentation request.
func (f *walletFixture) vpr(tb testing.TB, exchangeURL string) map[string]any {
	tb.Helper()
	st, _, body := f.post(tb, exchangeURL, "{}")
	require.Equal(tb, http.StatusOK, st, "%v", body)
	return body["verifiablePresentationRequest"].(map[string]any)
}

func (f *walletFixture) claimedEvents(tb testing.TB) int {
	tb.Helper()
	var n int
	require.NoError(tb, f.DB.Pool.QueryRow(context.Background(),
		"SELECT count(*) FROM webhook_events WHERE type = 'assertion.claimed'").Scan(&n))
	return n
}

// verifiedCopy checks the copy: signed by the organization's key, bound to holder.
func (f *walletFixture) verifiedCopy(tb testing.TB, vp map[string]any, holder string) map[string]any {
	tb.Helper()
	creds := vp["verifiableCredential"].([]any)
	require.Len(tb, creds, 1)
	c := creds[0].(map[string]any)
	require.Equal(tb, holder, c["credentialSubject"].(map[string]any)["id"])
	st, ctrl := f.getJSON(tb, baseURL+"/issuers/"+f.Org.ID.String())
	require.Equal(tb, http.StatusOK, st)
	res, err := credential.NewStaticResolver(ctrl)
	require.NoError(tb, err)
	raw, err := json.Marshal(c)
	require.NoError(tb, err)
	_, err = credential.Verify(context.Background(), raw, res)
	require.NoError(tb, err)
	return c
}

func TestExchange_RequestFlow(t *testing.T) {
	f := newWalletFixture(t)
	f.MustOK(t, http.MethodPost, "/public/v3/webhooks", f.Keys["manager"], `{"url":"https://93.184.215.14/a"}`)
	wl := newTestWallet(t)
	offer := f.offer(t, "")
	ex := jstr(t, offer, "exchangeUrl")
	req := f.vpr(t, ex)
	require.Equal(t, "DIDAuthentication", req["query"].([]any)[0].(map[string]any)["type"])
	require.Equal(t, ex, jstr(t, req, "interact.service.0.serviceEndpoint"))
	domain := req["domain"].(string)
	require.Equal(t, baseURL, domain)

	vp := wl.didAuth(t, req["challenge"].(string), domain, nil)
	st, _, body := f.post(t, ex, map[string]any{"verifiablePresentation": vp})
	require.Equal(t, http.StatusOK, st, "%v", body)
	f.verifiedCopy(t, body["verifiablePresentation"].(map[string]any), wl.did)
	require.Equal(t, 1, f.copies(t))
	require.Equal(t, 1, f.claimedEvents(t))

	r := f.Do(t, http.MethodGet, "/public/v3/assertions/"+f.assertion.String(), f.Keys["manager"], "")
	require.Equal(t, http.StatusOK, r.Status)
	copies := r.Body["data"].(map[string]any)["walletCopies"].([]any)
	require.Len(t, copies, 1)
	require.Equal(t, "vcapi", copies[0].(map[string]any)["protocol"])
	require.Equal(t, wl.did, copies[0].(map[string]any)["holderDid"])

	// Replayed, or another challenge of the same offer: the offer was used.
	st, _, body = f.post(t, ex, map[string]any{"verifiablePresentation": vp})
	require.Equal(t, http.StatusGone, st, "%v", body)
	require.Equal(t, "urn:badged:problem:offer-ended", body["type"])
	st, _, _ = f.post(t, ex, "{}")
	require.Equal(t, http.StatusGone, st)
	// The OpenID4VCI side of the same offer has ended too.
	st, _, _ = f.protocol(t, http.MethodGet, jstr(t, offer, "credentialOfferUri"), "", "", "")
	require.Equal(t, http.StatusGone, st)
	require.Equal(t, 1, f.copies(t))
}

func TestExchange_DeepLink(t *testing.T) {
	f := newWalletFixture(t)
	wl := newTestWallet(t)
	offer := f.offer(t, "")
	link, err := url.Parse(jstr(t, offer, "lcwRequest"))
	require.NoError(t, err)
	require.Equal(t, "https://lcw.app/request.html", link.Scheme+"://"+link.Host+link.Path)
	q := link.Query()
	require.Equal(t, "bearer", q.Get("auth_type"))
	require.Equal(t, baseURL+"/issuers/"+f.Org.ID.String(), q.Get("issuer"))
	require.Equal(t, jstr(t, offer, "exchangeUrl"), q.Get("vc_request_url"))
	require.Equal(t, jstr(t, offer, "id"), q.Get("challenge"))

	// The interaction URL's protocols object names both ways in.
	st, _, protos := f.protocol(t, http.MethodGet, jstr(t, offer, "exchangeUrl")+"/protocols", "", "", "")
	require.Equal(t, http.StatusOK, st, "%v", protos)
	require.Equal(t, jstr(t, offer, "exchangeUrl"), jstr(t, protos, "protocols.vcapi"))
	require.Equal(t, jstr(t, offer, "offer"), jstr(t, protos, "protocols.OID4VCI"))

	// The LCW posts the signed presentation itself, with the link's challenge and no domain, and reads a VP back.
	st, _, body := f.post(t, q.Get("vc_request_url"), wl.didAuth(t, q.Get("challenge"), "", nil))
	require.Equal(t, http.StatusOK, st, "%v", body)
	require.Equal(t, []any{"VerifiablePresentation"}, body["type"])
	st, _, _ = f.protocol(t, http.MethodGet, jstr(t, offer, "exchangeUrl")+"/protocols", "", "", "")
	require.Equal(t, http.StatusGone, st, "a used offer names no way in")
	f.verifiedCopy(t, body, wl.did)
	require.Equal(t, 1, f.copies(t))

	st, _, body = f.post(t, q.Get("vc_request_url"), wl.didAuth(t, q.Get("challenge"), "", nil))
	require.Equal(t, http.StatusGone, st, "%v", body)
	require.Equal(t, 1, f.copies(t))

	// An offer with a tx_code has no LCW link, and its exchange refuses: the wallet cannot enter the code.
	tx := f.offer(t, `{"txCode":true}`)
	require.Nil(t, tx["lcwRequest"])
	st, _, body = f.post(t, jstr(t, tx, "exchangeUrl"), "{}")
	require.Equal(t, http.StatusConflict, st, "%v", body)
	require.Equal(t, "urn:badged:problem:tx-code-required", body["type"])
}

func TestExchange_Refusals(t *testing.T) {
	f := newWalletFixture(t)
	f.MustOK(t, http.MethodPost, "/public/v3/webhooks", f.Keys["manager"], `{"url":"https://93.184.215.14/a"}`)
	wl := newTestWallet(t)
	other := newTestWallet(t)
	offer := f.offer(t, "")
	ex := jstr(t, offer, "exchangeUrl")
	req := f.vpr(t, ex)
	challenge, domain := req["challenge"].(string), req["domain"].(string)
	otherOffer := f.offer(t, "")
	otherChallenge := f.vpr(t, jstr(t, otherOffer, "exchangeUrl"))["challenge"].(string)
	crypto := "https://www.w3.org/TR/vc-data-model#CRYPTOGRAPHIC_SECURITY_ERROR"

	unsigned := wl.didAuth(t, challenge, domain, nil)
	delete(unsigned, "proof")
	tampered := wl.didAuth(t, challenge, domain, nil)
	tampered["holder"] = other.did
	cases := []struct {
		name   string
		body   any
		status int
		typ    string
	}{
		{"made-up challenge", map[string]any{"verifiablePresentation": wl.didAuth(t, "made-up", domain, nil)}, 400, crypto},
		{"another offer's challenge", map[string]any{"verifiablePresentation": wl.didAuth(t, otherChallenge, domain, nil)}, 400, crypto},
		{"wrong domain", map[string]any{"verifiablePresentation": wl.didAuth(t, challenge, "https://evil.example", nil)}, 400, crypto},
		{"no domain", map[string]any{"verifiablePresentation": wl.didAuth(t, challenge, "", nil)}, 400, crypto},
		{"signed by another key", map[string]any{"verifiablePresentation": wl.didAuth(t, challenge, domain, other.key)}, 400, crypto},
		{"another holder", map[string]any{"verifiablePresentation": tampered}, 400, crypto},
		{"unsigned", map[string]any{"verifiablePresentation": unsigned}, 400, crypto},
		{"not a presentation", map[string]any{"verifiablePresentation": map[string]any{"holder": wl.did}}, 400, crypto},
		{"not JSON", "{", 400, "https://www.w3.org/TR/vc-data-model#PARSING_ERROR"},
		{"1 MB", `{"verifiablePresentation":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "https://www.w3.org/TR/vc-data-model#MALFORMED_VALUE_ERROR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _, body := f.post(t, ex, c.body)
			require.Equal(t, c.status, st, "%v", body)
			require.Equal(t, c.typ, body["type"], "%v", body)
			require.NotEmpty(t, body["detail"])
		})
	}
	st, _, body := f.post(t, baseURL+"/exchanges/"+"00000000-0000-4000-8000-000000000000", "{}")
	require.Equal(t, http.StatusNotFound, st, "%v", body)
	st, _, _ = f.post(t, baseURL+"/exchanges/not-a-uuid", "{}")
	require.Equal(t, http.StatusNotFound, st)
	require.Equal(t, 0, f.copies(t), "the refusals wrote nothing")
	require.Equal(t, 0, f.claimedEvents(t), "nor recorded an event")

	// Nothing was used up: the honest presentation for the same challenge still claims.
	st, _, body = f.post(t, ex, map[string]any{"verifiablePresentation": wl.didAuth(t, challenge, domain, nil)})
	require.Equal(t, http.StatusOK, st, "%v", body)

	// A withdrawn offer and a cancelled assertion end the exchange.
	r := f.Do(t, http.MethodDelete, "/public/v3/assertions/"+f.assertion.String()+"/credential-offers/"+jstr(t, otherOffer, "id"), f.Keys["manager"], "")
	require.Equal(t, http.StatusOK, r.Status)
	st, _, body = f.post(t, jstr(t, otherOffer, "exchangeUrl"), map[string]any{"verifiablePresentation": wl.didAuth(t, otherChallenge, domain, nil)})
	require.Equal(t, http.StatusGone, st, "%v", body)
	require.Contains(t, body["detail"], "withdrawn")

	third := f.offer(t, "")
	c3 := f.vpr(t, jstr(t, third, "exchangeUrl"))["challenge"].(string)
	r = f.Do(t, http.MethodPost, "/public/v3/assertions/"+f.assertion.String()+"/cancel", f.Keys["manager"], "")
	require.Equal(t, http.StatusOK, r.Status)
	st, _, body = f.post(t, jstr(t, third, "exchangeUrl"), map[string]any{"verifiablePresentation": wl.didAuth(t, c3, domain, nil)})
	require.Equal(t, http.StatusGone, st, "%v", body)
	require.Contains(t, body["detail"], "cancelled")
	require.Equal(t, 1, f.copies(t))
}

// TestExchange_WebWalletCORS: a web wallet (CHAPI's run in pages) may post to an exchange from its own origin.
func TestExchange_WebWalletCORS(t *testing.T) {
	f := newWalletFixture(t)
	ex := f.Local(jstr(t, f.offer(t, ""), "exchangeUrl"))
	req, err := http.NewRequest(http.MethodOptions, ex, nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "https://wallet.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusNoContent, res.StatusCode)
	require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"))
	require.Contains(t, res.Header.Get("Access-Control-Allow-Methods"), "POST")
	require.Contains(t, res.Header.Get("Access-Control-Allow-Headers"), "Content-Type")

	req, err = http.NewRequest(http.MethodPost, ex, strings.NewReader("{}"))
	require.NoError(t, err)
	req.Header.Set("Origin", "https://wallet.example")
	req.Header.Set("Content-Type", "application/json")
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"))
}
