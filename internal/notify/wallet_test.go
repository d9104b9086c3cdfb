package notify

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWalletOffer_Rendering: the issue notice carries the landing page (mail and KakaoTalk) and the wallet link
// (mail); a link of another scheme, a landing page that is not http(s), or a reminder carry none.
func TestWalletOffer_Rendering(t *testing.T) {
	offer := &WalletOffer{Link: "openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fb.example%2Foid4vci%2Foffers%2Fx",
		PageURL: "https://b.example/oid4vci/offers/x/open?lang=ko", QR: []byte("\x89PNG"), ExpiresAt: time.Date(2027, 1, 2, 3, 4, 0, 0, time.UTC)}
	n := Notification{AssertionID: "a1", Channel: KakaoTalk, Locale: "ko", RecipientName: "김민지", BadgeName: "Go",
		IssuerName: "Org", VerifyURL: "https://b.example/verify/a1", Wallet: offer}
	k, err := renderKakao(n)
	require.NoError(t, err)
	require.Contains(t, k, "지갑에 담기: "+offer.PageURL)
	require.NotContains(t, k, "openid-credential-offer://", "KakaoTalk links only http(s)")

	n.Channel, n.Locale = Email, "en"
	r, err := renderEmail(n)
	require.NoError(t, err)
	require.Contains(t, r.Text, offer.PageURL)
	require.Contains(t, r.Text, "Wallet link: "+offer.Link)
	require.Contains(t, r.Text, "January 2, 2027")
	require.Contains(t, r.HTML, `href="`+offer.Link+`"`)
	require.Contains(t, r.HTML, `src="cid:wallet-qr@badged"`)

	for name, bad := range map[string]*WalletOffer{
		"javascript link": {Link: "javascript:alert(1)", PageURL: offer.PageURL},
		"page not http":   {Link: offer.Link, PageURL: "ftp://b.example/x"},
	} {
		n.Wallet = bad
		r, err := renderEmail(n)
		require.NoError(t, err, name)
		require.NotContains(t, r.HTML, "wallet", name)
		require.False(t, strings.Contains(r.Text, "Wallet link"), name)
	}
	n.Wallet, n.Reminder = offer, &Reminder{DaysBefore: 30}
	r, err = renderEmail(n)
	require.NoError(t, err)
	require.NotContains(t, r.Text, offer.PageURL, "a reminder carries no offer")
}

// TestWalletOffer_KakaoParameter: the KakaoTalk provider receives the landing page as the walletOfferUrl template
// parameter (for templates with a link button) besides the rendered text.
func TestWalletOffer_KakaoParameter(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewDecoder(r.Body).Decode(&got)
	}))
	t.Cleanup(srv.Close)
	k, err := NewKakao(KakaoConfig{Endpoint: srv.URL, SenderKey: "s", TemplateCode: "T"})
	require.NoError(t, err)
	page := "https://b.example/oid4vci/offers/x/open?lang=ko"
	_, err = k.Send(context.Background(), Notification{AssertionID: "a1", Channel: KakaoTalk, Phone: "010-1234-5678",
		RecipientName: "김민지", BadgeName: "Go", IssuerName: "Org", VerifyURL: "https://b.example/verify/a1",
		Wallet: &WalletOffer{Link: "openid-credential-offer://?credential_offer_uri=x", PageURL: page}})
	require.NoError(t, err)
	require.Equal(t, page, got["templateParameter"].(map[string]any)["walletOfferUrl"])
	require.Contains(t, got["content"], page)
}
