package wallet_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// getPage fetches a page of the test server in lang and returns its status and body.
func (f *walletFixture) getPage(tb testing.TB, u, lang string) (int, http.Header, string) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, f.Local(u), nil)
	require.NoError(tb, err)
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Accept-Language", lang)
	res, err := http.DefaultClient.Do(req)
	require.NoError(tb, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	return res.StatusCode, res.Header, string(b)
}

// TestWallet_OfferPageAndWalletSince: the offer's landing page shows the QR code and the wallet link without
// minting a code; once a wallet took a copy, the page says the offer is used (410), and the public badge page says
// "in a wallet since" in both languages, never showing an offer.
func TestWallet_OfferPageAndWalletSince(t *testing.T) {
	f := newWalletFixture(t)
	ctx := context.Background()
	verify := baseURL + "/verify/" + f.assertion.String()
	_, _, before := f.getPage(t, verify, "en")
	require.NotContains(t, before, "In a wallet since")

	data := f.offer(t, "")
	uri := jstr(t, data, "credentialOfferUri")
	st, h, page := f.getPage(t, uri+"/open", "en")
	require.Equal(t, http.StatusOK, st, page)
	require.Equal(t, "no-store", h.Get("Cache-Control"))
	require.Contains(t, h.Get("Content-Security-Policy"), "default-src 'none'")
	require.Contains(t, page, `src="data:image/png;base64,`)
	require.Contains(t, page, `href="`+jstr(t, data, "offer")+`"`)
	require.Contains(t, page, `href="https://lcw.app/request.html?`, "and the Learner Credential Wallet's link, as the offer's lcwRequest")
	var codes int
	require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM preauth_codes").Scan(&codes))
	require.Zero(t, codes, "the landing page mints no code")
	st, _, ko := f.getPage(t, uri+"/open?lang=ko", "en")
	require.Equal(t, http.StatusOK, st)
	require.Contains(t, ko, "지갑 앱에서 열기")

	wl := newTestWallet(t)
	o := f.fetchOffer(t, uri)
	st, tok := f.tokenFor(t, preAuthCode(t, o), "")
	require.Equal(t, http.StatusOK, st, "%v", tok)
	iss := o["credential_issuer"].(string)
	st, _, body := f.credentialRequest(t, tok["access_token"].(string), cfgLDP, wl.proof(t, proofSpec{aud: iss, nonce: f.freshNonce(t)}))
	require.Equal(t, http.StatusOK, st, "%v", body)

	st, _, used := f.getPage(t, uri+"/open", "en")
	require.Equal(t, http.StatusGone, st)
	require.Contains(t, used, "This offer can no longer be used.")
	require.NotContains(t, used, "openid-credential-offer://")

	_, _, en := f.getPage(t, verify, "en")
	require.Contains(t, en, "In a wallet since")
	require.NotContains(t, en, "openid-credential-offer")
	require.NotContains(t, en, "/oid4vci/offers/")
	_, _, koPage := f.getPage(t, verify+"?lang=ko", "ko")
	require.Contains(t, koPage, "부터 지갑에 보관 중")

	var pending bool
	require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT anchor_pending FROM wallet_credentials WHERE assertion_id = $1", f.assertion).Scan(&pending))
	require.True(t, pending, "the claim records the live copy as pending for the next anchor batch")
}
