package notify_test

import (
	"context"
	"mime"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
)

// fullNotification is what the pipeline sends: the organization as From display name, an expiry, the badge page
// and the recipient's PDF, the baked badge inline.
func fullNotification(t *testing.T) notify.Notification {
	t.Helper()
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(t, err)
	exp := time.Date(2027, 3, 1, 0, 0, 0, 0, seoul)
	n := koreanNotification()
	n.Locale = notify.LocaleFor(n.RecipientName, n.IssuerName, n.BadgeName)
	n.FromName = notify.FromDisplayName("{org} via badged", n.IssuerName)
	n.ExpiresAt, n.Location = &exp, seoul
	n.CertificateURL = "https://badges.example.com/credentials/0b4c1c2e/certificate.pdf?token=5f0e"
	return n
}

func TestSMTPSend_FullKoreanMessage(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
	s := mustSMTP(t, smtpConfig(srv))
	n := fullNotification(t)
	require.Equal(t, "ko", n.Locale)
	_, err := s.Send(context.Background(), n)
	require.NoError(t, err)
	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	require.Equal(t, "noreply@badged.example", msgs[0].From, "the envelope sender stays the deployment's")

	raw := string(msgs[0].Data)
	header := raw[:strings.Index(raw, "\r\n\r\n")]
	// Korean header text travels RFC 2047-encoded, never as raw UTF-8.
	require.Regexp(t, regexp.MustCompile(`(?i)\r\nFrom:\s+=\?utf-8\?[qb]\?`), header)
	require.Regexp(t, regexp.MustCompile(`(?i)\r\nSubject:\s+=\?utf-8\?[qb]\?`), header)
	for _, line := range strings.Split(header, "\r\n") {
		for _, r := range line {
			require.Less(t, r, rune(128), "non-ASCII in header line %q", line)
		}
	}

	m := mustParseMail(t, msgs[0].Data)
	from, err := m.Header.AddressList("From")
	require.NoError(t, err)
	require.Len(t, from, 1)
	require.Equal(t, "한빛대학교 via badged", from[0].Name)
	require.Equal(t, "noreply@badged.example", from[0].Address)
	require.Equal(t, "[한빛대학교] 데이터 분석 기초 배지가 발급되었습니다", m.Subject)

	ct, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/related", ct, "the inline image is related to the HTML that shows it")
	require.NotEmpty(t, params["boundary"])

	text := string(m.Parts["text/plain"])
	require.Contains(t, text, "유효기간: 2027년 3월 1일 00:00 (KST)까지")
	require.Contains(t, text, n.VerifyURL)
	require.Contains(t, text, "인증서(PDF) 내려받기:\r\n"+n.CertificateURL)
	html := string(m.Parts["text/html"])
	require.Contains(t, html, "<p>유효기간: 2027년 3월 1일 00:00 (KST)까지</p>")
	require.Contains(t, html, `href="https://badges.example.com/credentials/0b4c1c2e/certificate.pdf?token=5f0e"`)
	require.Contains(t, html, `src="cid:badge@badged"`)
	require.Equal(t, "image/png", m.ContentIDs["badge@badged"], "the cid the HTML names is the image part")
	require.Equal(t, pngBadge, m.Parts["image/png"])
}

func TestSMTPSend_EnglishWithoutExpiry(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
	s := mustSMTP(t, smtpConfig(srv))
	n := fullNotification(t)
	n.RecipientName, n.IssuerName, n.BadgeName = "Jane Doe", "Acme \"University\"\r\nBcc: x@evil.example", "Go 101"
	n.Locale = notify.LocaleFor(n.RecipientName, n.IssuerName, n.BadgeName)
	n.FromName = notify.FromDisplayName("{org} via badged", n.IssuerName)
	require.Equal(t, "en", n.Locale)
	exp := time.Date(2027, 3, 1, 0, 0, 0, 0, n.Location)
	n.ExpiresAt = &exp
	_, err := s.Send(context.Background(), n)
	require.NoError(t, err)
	n.ExpiresAt = nil
	n.AssertionID = "second"
	_, err = s.Send(context.Background(), n)
	require.NoError(t, err)
	msgs := srv.Messages()
	require.Len(t, msgs, 2)

	m := mustParseMail(t, msgs[0].Data)
	require.Empty(t, m.Header.Get("Bcc"), "a name cannot add headers")
	from, err := m.Header.AddressList("From")
	require.NoError(t, err)
	// The line break becomes spaces (FromDisplayName), the quotes stay (the header quotes them): one display name,
	// no header.
	require.Equal(t, `Acme "University"  Bcc: x@evil.example via badged`, from[0].Name)
	require.Equal(t, "noreply@badged.example", from[0].Address)
	text := string(m.Parts["text/plain"])
	require.Contains(t, text, "Valid until March 1, 2027 at 00:00 (KST).")
	require.Contains(t, text, "Your certificate (PDF):\r\n"+n.CertificateURL)

	m2 := mustParseMail(t, msgs[1].Data)
	require.NotContains(t, string(m2.Parts["text/plain"]), "Valid until")
	require.NotContains(t, string(m2.Parts["text/html"]), "Valid until")
}

func TestLocaleFor(t *testing.T) {
	require.Equal(t, "ko", notify.LocaleFor("김민지", "Acme", "Go"))
	require.Equal(t, "ko", notify.LocaleFor("Jane", "한빛대학교", "Go"))
	require.Equal(t, "en", notify.LocaleFor("Jane", "Acme", "Go 101"))
	require.Equal(t, "en", notify.LocaleFor("山田太郎", "", ""), "kanji is not Hangul")
}
