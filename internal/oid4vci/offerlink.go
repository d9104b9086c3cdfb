package oid4vci

import (
	"bytes"
	"fmt"
	"image/png"
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"
	qrcode "github.com/skip2/go-qrcode"
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

// qrPixels is the side of an offer's QR code image: an offer link of ~110 characters is a version 6 code (41
// modules plus the quiet zone), about 6 px per module, which phone cameras read from a screen at arm's length.
const qrPixels = 300

// OfferQR is the PNG QR code of an offer link (error recovery Medium: a screen, not print, so no smudges to fight).
// The notify step makes one per recipient, so its cost counts: the image is go-qrcode's, written by qrEncoder.
func OfferQR(link string) ([]byte, error) {
	q, err := qrcode.New(link, qrcode.Medium)
	if err != nil {
		return nil, fmt.Errorf("offer QR code: %w", err)
	}
	var b bytes.Buffer
	if err := qrEncoder.Encode(&b, q.Image(qrPixels)); err != nil {
		return nil, fmt.Errorf("offer QR code: %w", err)
	}
	return b.Bytes(), nil
}

// qrEncoder writes the QR code images. go-qrcode's own PNG method compresses at png.BestCompression with a new
// encoder (a ~1 MB compressor) per image: profiled at about half of a code's CPU and most of the notify step's
// garbage. A two-colour image of long flat runs compresses almost as well at BestSpeed (~1.1 KB instead of ~1.0),
// and the pool reuses the encoder's buffers and compressor.
var qrEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &encoderPool{}}

// encoderPool is a png.EncoderBufferPool on a sync.Pool, so concurrent senders each get an encoder state.
type encoderPool struct{ p sync.Pool }

func (e *encoderPool) Get() *png.EncoderBuffer {
	b, _ := e.p.Get().(*png.EncoderBuffer)
	return b
}

func (e *encoderPool) Put(b *png.EncoderBuffer) { e.p.Put(b) }

// OfferTTL is how long a credential offer can be used, whether the API created it for an integrator or the notify
// step for the recipient's mail: long enough for a week-old mail, since each fetch of the offer URI mints a fresh
// short-lived pre-authorized code.
const OfferTTL = 30 * 24 * time.Hour
