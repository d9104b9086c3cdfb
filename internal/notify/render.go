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

// errBadRecipient marks an email address that cannot be used: no retry can fix it.
var errBadRecipient = errors.New("invalid recipient address")

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
}

func newTemplateData(n Notification) templateData {
	d := templateData{
		RecipientName: n.RecipientName,
		BadgeName:     n.BadgeName,
		IssuerName:    n.IssuerName,
		VerifyURL:     n.VerifyURL,
	}
	if isHTTPURL(n.CertificateURL) {
		d.CertificateURL = n.CertificateURL
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
	loc := locale(n)
	var subj, text, html bytes.Buffer
	if err := textTemplates.ExecuteTemplate(&text, "email."+loc+".txt", d); err != nil {
		return renderedEmail{}, fmt.Errorf("render text body: %w", err)
	}
	if err := textTemplates.ExecuteTemplate(&subj, "subject."+loc, d); err != nil {
		return renderedEmail{}, fmt.Errorf("render subject: %w", err)
	}
	if err := htmlTemplates.ExecuteTemplate(&html, "email."+loc+".html", d); err != nil {
		return renderedEmail{}, fmt.Errorf("render html body: %w", err)
	}
	return renderedEmail{Subject: strings.TrimSpace(subj.String()), Text: text.String(), HTML: html.String()}, nil
}

func renderKakao(n Notification) (string, error) {
	var b bytes.Buffer
	if err := textTemplates.ExecuteTemplate(&b, "kakao."+locale(n)+".txt", newTemplateData(n)); err != nil {
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
	if n.RecipientName != "" {
		err = m.AddToFormat(n.RecipientName, n.Email)
	} else {
		err = m.To(n.Email)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadRecipient, err)
	}
	m.Subject(r.Subject)
	m.SetMessageIDWithValue(MessageID(n.AssertionID, domain))
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
	return m, nil
}

// setFrom sets the From header: the deployment's address, under the notification's display name when it has one.
func setFrom(m *mail.Msg, from, name string) error {
	if name == "" {
		if err := m.From(from); err != nil {
			return fmt.Errorf("from address: %w", err)
		}
		return nil
	}
	a, err := netmail.ParseAddress(from)
	if err != nil {
		return fmt.Errorf("from address: %w", err)
	}
	if err := m.FromFormat(name, a.Address); err != nil {
		return fmt.Errorf("from address: %w", err)
	}
	return nil
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
