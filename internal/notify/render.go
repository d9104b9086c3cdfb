package notify

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	htmltemplate "html/template"
	netmail "net/mail"
	"net/url"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/wneessen/go-mail"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/safetext"
)

//go:embed templates/*
var templateFS embed.FS

var (
	textTemplates = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/*.txt"))
	htmlTemplates = htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/*.html"))
)

// AssertionHeader names the header that carries the assertion id, so an operator or a mail filter can match a
// message to its assertion without parsing the Message-ID.
const AssertionHeader = "X-Badged-Assertion"

// errBadRecipient marks an email address that cannot be used: no retry can fix it (REJECTED_EMAIL, permanent).
var errBadRecipient = errors.New("invalid recipient address")

// buildError is the errorCode of a message that could not be built: REJECTED_EMAIL for a recipient address that
// does not parse (no mail system can take it, as if the relay had refused it at RCPT: permanent, not retried),
// NOTIFICATION_DELIVERY_FAILED otherwise.
func buildError(err error) error {
	if errors.Is(err, errBadRecipient) {
		return errcode.Wrap(errcode.RejectedEmail, "build email", err)
	}
	return errcode.Wrap(errcode.NotificationDeliveryFailed, "build email", err)
}

// badgeContentID is the Content-ID (RFC 2392, without the angle brackets) of the inline badge image, which the HTML
// body refers to as cid:badge@badged.
const badgeContentID = "badge@badged"

type templateData struct {
	RecipientName  string
	BadgeName      string
	IssuerName     string
	VerifyURL      string
	CertificateURL string
	Expires        string           // the expiry date in the message's language, empty when it never expires
	ImageURL       string           // the linked image for the plain-text body, empty when inline
	ImageSrc       htmltemplate.URL // cid: for the inline image or the checked http(s) link
	RenewURL       string           // reminders: the renewal link, empty when the organization does not renew
	// The wallet offer (issue notices): its https landing page, the openid-credential-offer:// link (marked safe
	// only when it has that scheme), the QR code's src (cid:) and the offer's last day.
	WalletPageURL string
	WalletLink    htmltemplate.URL
	WalletLinkRaw string
	WalletQRSrc   htmltemplate.URL
	WalletExpires string
}

// walletQRContentID is the Content-ID of the inline QR code of the wallet offer (cid:wallet-qr@badged).
const walletQRContentID = "wallet-qr@badged"

// walletLinkPrefix is the only scheme the wallet link may have: html/template would neutralise it otherwise.
const walletLinkPrefix = "openid-credential-offer://?"

// newTemplateData fills the templates. Names go through safetext.Display: the API refuses control and
// bidirectional override characters in names, and a name stored before that rule shows as one plain line.
func newTemplateData(n Notification) templateData {
	d := templateData{
		RecipientName: safetext.Display(n.RecipientName),
		BadgeName:     safetext.Display(n.BadgeName),
		IssuerName:    safetext.Display(n.IssuerName),
		VerifyURL:     n.VerifyURL,
	}
	if isHTTPURL(n.CertificateURL) {
		d.CertificateURL = n.CertificateURL
	}
	if n.Reminder != nil && isHTTPURL(n.Reminder.RenewURL) {
		d.RenewURL = n.Reminder.RenewURL
	}
	if w := n.Wallet; w != nil && n.Reminder == nil && isHTTPURL(w.PageURL) && strings.HasPrefix(w.Link, walletLinkPrefix) {
		d.WalletPageURL = w.PageURL
		d.WalletLink, d.WalletLinkRaw = htmltemplate.URL(w.Link), w.Link
		if len(w.QR) > 0 {
			d.WalletQRSrc = "cid:" + walletQRContentID
		}
		d.WalletExpires = formatExpiry(w.ExpiresAt, n.Location, locale(n))
	}
	if n.ExpiresAt != nil {
		d.Expires = formatExpiry(*n.ExpiresAt, n.Location, locale(n))
	}
	switch {
	case len(n.BadgeImage) > 0:
		d.ImageSrc = "cid:" + badgeContentID
	case isHTTPURL(n.BadgeImageURL):
		// Marked safe only after the scheme check: html/template would otherwise reject nothing but cid:.
		d.ImageSrc = htmltemplate.URL(n.BadgeImageURL)
		d.ImageURL = n.BadgeImageURL
	}
	return d
}

// formatExpiry writes the expiry instant as a date and time in loc, in the message's language: expiry falls at
// 00:00 of a day in the service's zone, so the time is shown too, or a reader would take the day as still valid.
func formatExpiry(t time.Time, loc *time.Location, lang string) string {
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	zone, _ := t.Zone()
	if lang == "ko" {
		return fmt.Sprintf("%d년 %d월 %d일 %02d:%02d (%s)", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), zone)
	}
	return t.Format("January 2, 2006 at 15:04 ") + "(" + zone + ")"
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

func locale(n Notification) string {
	if strings.HasPrefix(strings.ToLower(n.Locale), "en") {
		return "en"
	}
	return "ko"
}

// renderedEmail is the text of one email before it becomes MIME.
type renderedEmail struct {
	Subject string
	Text    string
	HTML    string
}

func renderEmail(n Notification) (renderedEmail, error) {
	d := newTemplateData(n)
	loc, p := locale(n), n.templatePrefix()
	var subj, text, html bytes.Buffer
	if err := textTemplates.ExecuteTemplate(&text, p+"email."+loc+".txt", d); err != nil {
		return renderedEmail{}, fmt.Errorf("render text body: %w", err)
	}
	if err := textTemplates.ExecuteTemplate(&subj, p+"subject."+loc, d); err != nil {
		return renderedEmail{}, fmt.Errorf("render subject: %w", err)
	}
	if err := htmlTemplates.ExecuteTemplate(&html, p+"email."+loc+".html", d); err != nil {
		return renderedEmail{}, fmt.Errorf("render html body: %w", err)
	}
	return renderedEmail{Subject: strings.TrimSpace(subj.String()), Text: text.String(), HTML: html.String()}, nil
}

func renderKakao(n Notification) (string, error) {
	var b bytes.Buffer
	if err := textTemplates.ExecuteTemplate(&b, n.templatePrefix()+"kakao."+locale(n)+".txt", newTemplateData(n)); err != nil {
		return "", fmt.Errorf("render kakao text: %w", err)
	}
	return b.String(), nil
}

// MessageID returns the Message-ID (without angle brackets) of the email for an assertion. It depends only on the
// assertion and the domain, never on the attempt, so a retried send carries the same id and a receiving system or
// an operator can recognise the duplicate.
func MessageID(assertionID, domain string) string {
	return idLeft(assertionID) + ".badge@" + domain
}

// KakaoMessageID returns the id sent to the Kakao provider for an assertion; like MessageID it is the same for
// every attempt.
func KakaoMessageID(assertionID string) string {
	return idLeft(assertionID) + ".kakao"
}

// idLeft returns the assertion id when it is a plain token that is valid on the left of a Message-ID and in a
// file name, and otherwise its SHA-256 in hex, which is as stable.
func idLeft(assertionID string) string {
	ok := assertionID != "" && len(assertionID) <= 128
	for _, r := range assertionID {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			ok = false
			break
		}
	}
	if ok {
		return assertionID
	}
	sum := sha256.Sum256([]byte(assertionID))
	return "h" + hex.EncodeToString(sum[:16])
}

// buildEmail turns a notification into a MIME message with a plain-text part, an HTML alternative and, when the
// badge image bytes are given, the image inline.
func buildEmail(n Notification, from, domain string, now time.Time) (*mail.Msg, error) {
	r, err := renderEmail(n)
	if err != nil {
		return nil, err
	}
	m := mail.NewMsg(mail.WithCharset(mail.CharsetUTF8), mail.WithEncoding(mail.EncodingQP))
	if err := setFrom(m, from, n.FromName); err != nil {
		return nil, err
	}
	to, err := netmail.ParseAddress(n.Email)
	if err != nil || to.Name != "" {
		return nil, fmt.Errorf("%w %q", errBadRecipient, n.Email)
	}
	to.Name = safetext.Display(n.RecipientName)
	setTo(m, to)
	setSubject(m, r.Subject)
	m.SetMessageIDWithValue(n.emailID(domain))
	m.SetDateWithValue(now)
	m.SetGenHeader(mail.Header(AssertionHeader), n.AssertionID)
	m.SetBodyString(mail.TypeTextPlain, r.Text)
	m.AddAlternativeString(mail.TypeTextHTML, r.HTML)
	if len(n.BadgeImage) > 0 {
		ct := n.BadgeImageType
		if ct == "" {
			ct = "image/png"
		}
		err := m.EmbedReader("badge"+imageExt(ct), bytes.NewReader(n.BadgeImage),
			mail.WithFileContentID("<"+badgeContentID+">"), mail.WithFileContentType(mail.ContentType(ct)))
		if err != nil {
			return nil, fmt.Errorf("embed badge image: %w", err)
		}
	}
	if d := newTemplateData(n); d.WalletQRSrc != "" {
		err := m.EmbedReader("wallet-offer-qr.png", bytes.NewReader(n.Wallet.QR),
			mail.WithFileContentID("<"+walletQRContentID+">"), mail.WithFileContentType("image/png"))
		if err != nil {
			return nil, fmt.Errorf("embed wallet offer QR code: %w", err)
		}
	}
	return m, nil
}

func imageExt(contentType string) string {
	switch contentType {
	case "image/svg+xml":
		return ".svg"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	}
	return ".png"
}

// domainOf returns the domain of an address such as "Badged <noreply@example.com>", or "" when it has none.
func domainOf(addr string) string {
	a, err := netmail.ParseAddress(addr)
	if err != nil {
		return ""
	}
	if i := strings.LastIndexByte(a.Address, '@'); i >= 0 {
		return a.Address[i+1:]
	}
	return ""
}
