package oid4vci

import (
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/internal/qr"
)

// Prefix is where the shared OpenID4VCI endpoints live (token, nonce, credential, notification, offers).
const Prefix = "/oid4vci"

// OfferURI is the https credential_offer_uri a wallet fetches an offer from (each fetch mints a fresh code).
func OfferURI(baseURL string, offer uuid.UUID) string {
	return baseURL + Prefix + "/offers/" + offer.String()
}

// OfferPageURL is the https landing page of an offer: the QR code and a button that opens the wallet. Mail and
// chat clients drop or leave unclickable links of a custom scheme (Gmail removes the href of anything but http,
// https and mailto; KakaoTalk links only http and https), so the messages link this page and the page links the
// openid-credential-offer:// link. It mints no code: only the wallet's fetch of the offer URI does.
func OfferPageURL(baseURL string, offer uuid.UUID, lang string) string {
	u := OfferURI(baseURL, offer) + "/open"
	if lang != "" {
		u += "?lang=" + url.QueryEscape(lang)
	}
	return u
}

// OfferLink is the openid-credential-offer:// link (and QR code content) that opens a wallet on the offer.
func OfferLink(offerURI string) string {
	return "openid-credential-offer://?credential_offer_uri=" + url.QueryEscape(offerURI)
}

// qrPixels is the side of an offer's QR code image: an offer link of ~140 bytes is a version 8 code (49 modules
// plus the quiet zone), about 5 px per module, which phone cameras read from a screen at arm's length.
const qrPixels = 300

// OfferQR is the PNG QR code of an offer link (error recovery Medium: a screen, not print, so no smudges to fight).
// The notify step makes one per recipient, so its cost counts: the modules come from internal/qr, the image is
// drawn and written here (qrpng.go).
func OfferQR(link string) ([]byte, error) {
	q, err := qr.Encode(link)
	if err != nil {
		return nil, fmt.Errorf("offer QR code: %w", err)
	}
	b, err := qrPNG(q, qrPixels)
	if err != nil {
		return nil, fmt.Errorf("offer QR code: %w", err)
	}
	return b, nil
}

// OfferTTL is how long a credential offer can be used, whether the API created it for an integrator or the notify
// step for the recipient's mail: long enough for a week-old mail, since each fetch of the offer URI mints a fresh
// short-lived pre-authorized code.
const OfferTTL = 30 * 24 * time.Hour
