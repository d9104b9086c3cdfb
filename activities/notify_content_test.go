package activities

import (
	"context"
	"crypto/tls"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
)

// TestNotification_FromAssertion builds a recipient's message from the stored assertion and sends it over the
// SMTP test server: the organization as From display name, the expiry, the badge page and the PDF link with the
// assertion's certificate token, the baked PNG inline, Korean for a Hangul name.
func TestNotification_FromAssertion(t *testing.T) {
	f := mustFixture(t)
	ctx := context.Background()
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(t, err)
	exp := time.Date(2027, 3, 1, 0, 0, 0, 0, seoul)
	_, ids := f.mustIssuance(t, "live", 3, recipient{Name: "김민지", ExpiredAt: &exp}, recipient{Name: "Jane Doe"})
	baked := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)
	require.NoError(t, f.Blob.Put(ctx, "baked/"+ids[0].String()+".png", baked, "image/png"))
	_, err = f.DB.Pool.Exec(ctx, `UPDATE assertions SET baked_key = $2, baked_content_type = 'image/png' WHERE id = $1`,
		ids[0], "baked/"+ids[0].String()+".png")
	require.NoError(t, err)
	f.acts.Issuer = issuer.New(f.DB, nil, "https://badges.example")
	f.acts.Location = seoul

	as := f.mustAssertion(t, ids[0])
	n := f.acts.mail().Notice(ctx, as, "Go Expert", "Badged Academy")
	require.Equal(t, "ko", n.Locale)
	require.Equal(t, "Badged Academy via badged", n.FromName)
	require.Equal(t, "https://badges.example/verify/"+as.ID.String(), n.VerifyURL)
	require.Equal(t, "https://badges.example/credentials/"+as.ID.String()+"/certificate.pdf?token="+as.CertificateToken.String(), n.CertificateURL)
	require.Equal(t, baked, n.BadgeImage)
	require.True(t, n.ExpiresAt.Equal(exp))

	other := f.acts.mail().Notice(ctx, f.mustAssertion(t, ids[1]), "Go Expert", "Badged Academy")
	require.Equal(t, "en", other.Locale)
	require.Nil(t, other.BadgeImage, "no baked image stored: the mail links it")
	require.Nil(t, other.ExpiresAt)

	f.acts.MailFromName = "{org} (badges)"
	srv := smtptest.Start(t, smtptest.Options{NoTLS: true})
	s, err := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, TLS: notify.TLSNone, Auth: notify.AuthNone,
		From: "badged <noreply@badged.example>", Timeout: 5 * time.Second, TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12}})
	require.NoError(t, err)
	_, err = s.Send(ctx, f.acts.mail().Notice(ctx, as, "Go Expert", "Badged Academy"))
	require.NoError(t, err)
	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	m, err := mail.ReadMessage(strings.NewReader(string(msgs[0].Data)))
	require.NoError(t, err)
	from, err := m.Header.AddressList("From")
	require.NoError(t, err)
	require.Equal(t, "Badged Academy (badges)", from[0].Name)
	require.Equal(t, "noreply@badged.example", from[0].Address)
	require.Contains(t, m.Header.Get("Content-Type"), "multipart/related")
	require.Contains(t, strings.ToLower(string(msgs[0].Data)), "content-id: <badge@badged>")
}
