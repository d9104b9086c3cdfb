package notify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
)

// TestSMTPSend_NamesParseBack sends mail through the real SMTP server for organization and recipient names with
// quotes, commas, angle brackets, Hangul, CR/LF and bidirectional overrides, and reads each message back as a mail
// client would (net/mail): one To address, the recipient's own, with the name as given; the From display name
// "{org} via badged"; the Subject decoded to the names; no header a name could have added. Names the API now
// refuses (CR/LF, overrides) may still be stored from before: they show as one plain line.
func TestSMTPSend_NamesParseBack(t *testing.T) {
	orgs := []struct{ name, shown string }{
		{`Hanbit "Lifelong, Learning" Center`, `Hanbit "Lifelong, Learning" Center`},
		{`한빛 "평생, 교육" <원>`, `한빛 "평생, 교육" <원>`},
		{"Evil\r\nBcc: boss@evil.test", "Evil  Bcc: boss@evil.test"},
		{`=?utf-8?q?Admin?=`, `=?utf-8?q?Admin?=`},
	}
	recipients := []struct{ name, shown string }{
		{`김 "민수, Jr." Lee`, `김 "민수, Jr." Lee`},
		{`x" <a@evil.test> (`, `x" <a@evil.test> (`},
		{`Park, Ji-woo <jw@evil.test>`, `Park, Ji-woo <jw@evil.test>`},
		{`back\slash "quote"`, `back\slash "quote"`},
		{"Line\r\nBcc: victim@evil.test", "Line  Bcc: victim@evil.test"},
		{"Alice \u202etneduts", "Alice tneduts"},
		{`=?utf-8?b?7ZWc67mb?=`, `=?utf-8?b?7ZWc67mb?=`},
		{strings.TrimSpace(strings.Repeat("아주 긴 이름 ", 12)), strings.TrimSpace(strings.Repeat("아주 긴 이름 ", 12))},
	}
	srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
	s := mustSMTP(t, smtpConfig(srv))
	sent := 0
	for i, org := range orgs {
		for j, rc := range recipients {
			t.Run(fmt.Sprintf("org %d recipient %d", i, j), func(t *testing.T) {
				n := koreanNotification()
				n.AssertionID = fmt.Sprintf("names-%d-%d", i, j)
				n.IssuerName, n.RecipientName = org.name, rc.name
				n.Email = fmt.Sprintf("r%d.%d@example.com", i, j)
				n.Locale = notify.LocaleFor(n.RecipientName, n.IssuerName, n.BadgeName)
				n.FromName = notify.FromDisplayName("{org} via badged", n.IssuerName)
				_, err := s.Send(context.Background(), n)
				require.NoError(t, err)
				sent++
				msgs := srv.Messages()
				require.Len(t, msgs, sent)
				got := msgs[sent-1]
				require.Equal(t, []string{n.Email}, got.To, "the envelope has the recipient's address only")

				m := mustParseMail(t, got.Data)
				to, err := m.Header.AddressList("To")
				require.NoError(t, err, "To: %q", m.Header.Get("To"))
				require.Len(t, to, 1, "To: %q", m.Header.Get("To"))
				require.Equal(t, rc.shown, to[0].Name)
				require.Equal(t, n.Email, to[0].Address)

				from, err := m.Header.AddressList("From")
				require.NoError(t, err, "From: %q", m.Header.Get("From"))
				require.Len(t, from, 1)
				require.Equal(t, org.shown+" via badged", from[0].Name)
				require.Equal(t, "noreply@badged.example", from[0].Address)

				require.Equal(t, "["+org.shown+"] "+n.BadgeName+" 배지가 발급되었습니다", m.Subject)
				for _, h := range []string{"Bcc", "Cc", "Reply-To"} {
					require.Empty(t, m.Header.Get(h), "no %s header", h)
				}
				raw := string(got.Data)
				for _, line := range strings.Split(raw[:strings.Index(raw, "\r\n\r\n")], "\r\n") {
					require.LessOrEqual(t, len(line), 998, "RFC 5322 line limit")
					for _, r := range line {
						require.Less(t, r, rune(128), "non-ASCII in header line %q", line)
					}
				}
				require.Contains(t, string(m.Parts["text/plain"]), rc.shown)
			})
		}
	}
}

// TestSMTPSend_MalformedAddressIsPermanent: a recipient address that does not parse never reaches the server and
// fails with REJECTED_EMAIL, a permanent class of the retry table, not a retried one.
func TestSMTPSend_MalformedAddressIsPermanent(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
	s := mustSMTP(t, smtpConfig(srv))
	for _, addr := range []string{"not-an-address", "a@b@c", `"unterminated@example.com`, "Name <a@example.com>"} {
		n := koreanNotification()
		n.Email = addr
		_, err := s.Send(context.Background(), n)
		require.Error(t, err, addr)
		require.Equal(t, errcode.RejectedEmail, errcode.Of(err), "%s: %v", addr, err)
	}
	require.Empty(t, srv.Messages())
	require.Zero(t, srv.Connections(), "nothing to send, so no session")
}
