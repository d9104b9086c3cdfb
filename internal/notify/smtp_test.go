package notify_test

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
)

var pngBadge = []byte("\x89PNG\r\n\x1a\n-not-a-real-image-but-bytes-all-the-same")

func koreanNotification() notify.Notification {
	return notify.Notification{
		AssertionID:    "0b4c1c2e-7f1a-4c55-9d7e-1f2a3b4c5d6e",
		Channel:        notify.Email,
		Locale:         "ko",
		RecipientName:  "김민지",
		Email:          "minji@example.com",
		BadgeName:      "데이터 분석 기초",
		IssuerName:     "한빛대학교",
		BadgeImage:     pngBadge,
		BadgeImageType: "image/png",
		VerifyURL:      "https://badges.example.com/v/0b4c1c2e?x=1&y=2",
	}
}

// smtpConfig is a sender configuration for srv: STARTTLS required, AUTH PLAIN, the test CA trusted.
func smtpConfig(srv *smtptest.Server) notify.SMTPConfig {
	return notify.SMTPConfig{
		Host:      srv.Host,
		Port:      srv.Port,
		TLS:       notify.TLSMandatory,
		Auth:      notify.AuthPlain,
		Username:  "mailer",
		Password:  "s3cret",
		From:      "Badged <noreply@badged.example>",
		Timeout:   5 * time.Second,
		TLSConfig: &tls.Config{RootCAs: srv.RootCAs, MinVersion: tls.VersionTLS12},
	}
}

func mustSMTP(tb testing.TB, cfg notify.SMTPConfig) *notify.SMTP {
	tb.Helper()
	s, err := notify.NewSMTP(cfg)
	require.NoError(tb, err)
	return s
}

func TestSMTPSendKorean(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
	s := mustSMTP(t, smtpConfig(srv))
	n := koreanNotification()

	r, err := s.Send(context.Background(), n)
	require.NoError(t, err)
	wantID := "0b4c1c2e-7f1a-4c55-9d7e-1f2a3b4c5d6e.badge@badged.example"
	require.Equal(t, notify.Receipt{Channel: notify.Email, MessageID: wantID}, r)

	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	got := msgs[0]
	require.True(t, got.TLS, "sent over STARTTLS")
	require.Equal(t, "mailer", got.AuthUser)
	require.Equal(t, "noreply@badged.example", got.From)
	require.Equal(t, []string{"minji@example.com"}, got.To)
	require.Equal(t, "<"+wantID+">", got.MessageID)

	m := mustParseMail(t, got.Data)
	require.Equal(t, "[한빛대학교] 데이터 분석 기초 배지가 발급되었습니다", m.Subject)
	require.Equal(t, n.AssertionID, m.Header.Get(notify.AssertionHeader))
	to, err := m.Header.AddressList("To")
	require.NoError(t, err)
	require.Equal(t, "김민지", to[0].Name)

	text := string(m.Parts["text/plain"])
	require.Contains(t, text, "김민지님, 안녕하세요.")
	require.Contains(t, text, `한빛대학교에서 김민지님께 "데이터 분석 기초" 배지를 발급했습니다.`)
	require.Contains(t, text, n.VerifyURL)

	html := string(m.Parts["text/html"])
	require.Contains(t, html, "<strong>데이터 분석 기초</strong>")
	require.Contains(t, html, `href="https://badges.example.com/v/0b4c1c2e?x=1&amp;y=2"`)
	require.Contains(t, html, `src="cid:badge@badged"`)

	require.Equal(t, pngBadge, m.Parts["image/png"], "badge image embedded inline")
	require.Equal(t, "image/png", m.ContentIDs["badge@badged"])
}

func TestSMTPSendEnglishLinkedImageLoginAuth(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
	cfg := smtpConfig(srv)
	cfg.Auth = notify.AuthLogin
	s := mustSMTP(t, cfg)
	n := koreanNotification()
	n.Locale = "en"
	n.RecipientName = "Jane <Doe>"
	n.BadgeName = "Data & Analysis"
	n.BadgeImage = nil
	n.BadgeImageURL = "https://cdn.example.com/badge.png"

	_, err := s.Send(context.Background(), n)
	require.NoError(t, err)
	msgs := srv.Messages()
	require.Len(t, msgs, 1)
	m := mustParseMail(t, msgs[0].Data)
	require.Equal(t, "[한빛대학교] You have received the Data & Analysis badge", m.Subject)
	require.Contains(t, string(m.Parts["text/plain"]), "Badge image: https://cdn.example.com/badge.png")
	html := string(m.Parts["text/html"])
	require.Contains(t, html, `src="https://cdn.example.com/badge.png"`)
	require.Contains(t, html, "Hello Jane &lt;Doe&gt;,", "names are escaped in HTML")
	require.Contains(t, html, "Data &amp; Analysis")
	require.NotContains(t, m.Parts, "image/png")
}

func TestSMTPRetryKeepsMessageID(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{})
	cfg := smtpConfig(srv)
	cfg.Auth = notify.AuthNone
	s := mustSMTP(t, cfg)
	n := koreanNotification()
	for range 2 {
		_, err := s.Send(context.Background(), n)
		require.NoError(t, err)
	}
	msgs := srv.Messages()
	require.Len(t, msgs, 2)
	require.Equal(t, msgs[0].MessageID, msgs[1].MessageID)
}

func TestSMTPNoTLSPolicy(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{NoTLS: true})
	cfg := smtpConfig(srv)
	cfg.TLS = notify.TLSNone
	cfg.Auth = notify.AuthNone
	_, err := mustSMTP(t, cfg).Send(context.Background(), koreanNotification())
	require.NoError(t, err)
	require.False(t, srv.Messages()[0].TLS)

	cfg.TLS = notify.TLSOpportunistic
	_, err = mustSMTP(t, cfg).Send(context.Background(), koreanNotification())
	require.NoError(t, err, "opportunistic sends in clear when STARTTLS is not offered")
}

func TestSMTPErrorClasses(t *testing.T) {
	tests := []struct {
		name  string
		stage smtptest.Stage
		fault smtptest.Fault
		want  errcode.Code
	}{
		{"421 on connect", smtptest.StageConnect, smtptest.Fault{Code: 421}, errcode.EmailServerError},
		{"drop on connect", smtptest.StageConnect, smtptest.Fault{Drop: true}, errcode.EmailServerError},
		{"451 on MAIL", smtptest.StageMail, smtptest.Fault{Code: 451}, errcode.EmailServerError},
		{"553 on MAIL", smtptest.StageMail, smtptest.Fault{Code: 553}, errcode.EmailSendFailed},
		{"drop on MAIL", smtptest.StageMail, smtptest.Fault{Drop: true}, errcode.EmailServerError},
		{"450 on RCPT", smtptest.StageRcpt, smtptest.Fault{Code: 450}, errcode.EmailServerError},
		{"550 on RCPT", smtptest.StageRcpt, smtptest.Fault{Code: 550, Message: "no such user"}, errcode.RejectedEmail},
		{"drop on RCPT", smtptest.StageRcpt, smtptest.Fault{Drop: true}, errcode.EmailServerError},
		{"451 after DATA", smtptest.StageData, smtptest.Fault{Code: 451}, errcode.EmailServerError},
		{"550 after DATA", smtptest.StageData, smtptest.Fault{Code: 550, Message: "spam"}, errcode.BouncedEmail},
		{"554 after DATA", smtptest.StageData, smtptest.Fault{Code: 554}, errcode.BouncedEmail},
		{"drop after DATA", smtptest.StageData, smtptest.Fault{Drop: true}, errcode.EmailServerError},
	}
	srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
	s := mustSMTP(t, smtpConfig(srv))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.SetFault(tt.stage, tt.fault)
			defer srv.ClearFaults()
			_, err := s.Send(context.Background(), koreanNotification())
			require.Error(t, err)
			require.Equal(t, tt.want, errcode.Of(err), "got %v", err)
		})
	}
	require.Empty(t, srv.Messages(), "no fault lets a message through")
}

func TestSMTPConnectionErrors(t *testing.T) {
	t.Run("wrong password", func(t *testing.T) {
		srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
		cfg := smtpConfig(srv)
		cfg.Password = "wrong"
		_, err := mustSMTP(t, cfg).Send(context.Background(), koreanNotification())
		require.Equal(t, errcode.EmailSendFailed, errcode.Of(err), "got %v", err)
	})
	t.Run("server down", func(t *testing.T) {
		srv := smtptest.Start(t, smtptest.Options{})
		require.NoError(t, srv.Close())
		_, err := mustSMTP(t, smtpConfig(srv)).Send(context.Background(), koreanNotification())
		require.Equal(t, errcode.EmailServerError, errcode.Of(err), "got %v", err)
	})
	t.Run("mandatory STARTTLS not offered", func(t *testing.T) {
		srv := smtptest.Start(t, smtptest.Options{NoTLS: true})
		cfg := smtpConfig(srv)
		cfg.Auth = notify.AuthNone
		_, err := mustSMTP(t, cfg).Send(context.Background(), koreanNotification())
		require.Equal(t, errcode.EmailServerError, errcode.Of(err), "got %v", err)
		require.Empty(t, srv.Messages(), "nothing sent in clear")
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		srv := smtptest.Start(t, smtptest.Options{})
		cfg := smtpConfig(srv)
		cfg.Auth = notify.AuthNone
		cfg.TLSConfig = nil
		_, err := mustSMTP(t, cfg).Send(context.Background(), koreanNotification())
		require.Equal(t, errcode.EmailServerError, errcode.Of(err), "got %v", err)
		require.Contains(t, err.Error(), "certificate")
	})
	t.Run("server never greets", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close()
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				defer c.Close() // hold the connection open and silent
			}
		}()
		cfg := notify.SMTPConfig{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, TLS: notify.TLSNone,
			From: "noreply@badged.example", Timeout: 300 * time.Millisecond}
		start := time.Now()
		_, err = mustSMTP(t, cfg).Send(context.Background(), koreanNotification())
		require.Equal(t, errcode.EmailServerError, errcode.Of(err), "got %v", err)
		require.Less(t, time.Since(start), 3*time.Second)
	})
	t.Run("context cancelled", func(t *testing.T) {
		srv := smtptest.Start(t, smtptest.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		cfg := smtpConfig(srv)
		cfg.Auth = notify.AuthNone
		_, err := mustSMTP(t, cfg).Send(ctx, koreanNotification())
		require.Equal(t, errcode.EmailServerError, errcode.Of(err), "got %v", err)
	})
	t.Run("invalid recipient address", func(t *testing.T) {
		srv := smtptest.Start(t, smtptest.Options{})
		cfg := smtpConfig(srv)
		cfg.Auth = notify.AuthNone
		n := koreanNotification()
		n.Email = "not an address"
		_, err := mustSMTP(t, cfg).Send(context.Background(), n)
		require.Equal(t, errcode.RejectedEmail, errcode.Of(err), "got %v", err)
	})
}

func TestNewSMTPRejectsBadConfig(t *testing.T) {
	for _, cfg := range []notify.SMTPConfig{
		{From: "a@b.example"},
		{Host: "h"},
		{Host: "h", From: "no-domain"},
		{Host: "h", From: "a@b.example", TLS: "sometimes"},
		{Host: "h", From: "a@b.example", Auth: "CRAM-MD5"},
	} {
		_, err := notify.NewSMTP(cfg)
		require.Error(t, err, "%+v", cfg)
	}
}

func BenchmarkSMTPSend(b *testing.B) {
	srv := smtptest.Start(b, smtptest.Options{Username: "mailer", Password: "s3cret"})
	s := mustSMTP(b, smtpConfig(srv))
	n := koreanNotification()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Send(ctx, n); err != nil {
			b.Fatal(err)
		}
	}
	if got := len(srv.Messages()); got < b.N || !strings.Contains(string(srv.Messages()[0].Data), "Message-ID") {
		b.Fatalf("server received %d messages", got)
	}
}

// BenchmarkSMTPSendPlain is BenchmarkSMTPSend without STARTTLS and AUTH, to show what the handshake costs.
func BenchmarkSMTPSendPlain(b *testing.B) {
	srv := smtptest.Start(b, smtptest.Options{NoTLS: true})
	cfg := smtpConfig(srv)
	cfg.TLS, cfg.Auth = notify.TLSNone, notify.AuthNone
	s := mustSMTP(b, cfg)
	n := koreanNotification()
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Send(ctx, n); err != nil {
			b.Fatal(err)
		}
	}
}
