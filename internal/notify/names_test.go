package notify_test

import (
	"context"
	"fmt"
	"mime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/internal/safetext"
)

// TestSMTPSend_NamesParseBack sends mail through the real SMTP server for organization and recipient names with
// quotes, commas, angle brackets, Hangul, CR/LF and bidirectional overrides, and reads each message back as a mail
// client would (net/mail): one To address, the recipient's own, with the name as given; the From display name
// "{org} via badged"; the Subject decoded to the names; no header a name could have added. Names the API now
// refuses (CR/LF, overrides) may still be stored from before: they show as one plain line.
func TestSMTPSend_NamesParseBack(t *testing.T) {
	orgs := []struct{ name, shown, from string }{ // from: the From display name's org part, when not shown
		{`Hanbit "Lifelong, Learning" Center`, `Hanbit "Lifelong, Learning" Center`, ""},
		{`한빛 "평생, 교육" <원>`, `한빛 "평생, 교육" <원>`, ""},
		{"Evil\r\nBcc: boss@evil.test", "Evil  Bcc: boss@evil.test", ""},
		// In From, a word joiner after "=" makes go-mail encode the name (TestSMTPSend_EncodedWordNamesStayLiteral).
		{`=?utf-8?q?Admin?=`, `=?utf-8?q?Admin?=`, "=\u2060?utf-8?q?Admin?="},
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
				fromName := org.shown
				if org.from != "" {
					fromName = org.from
				}
				require.Equal(t, fromName+" via badged", from[0].Name)
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

// TestSMTPSend_EncodedWordNamesStayLiteral: an ASCII name that holds an encoded word ("=?utf-8?B?7ZWc67mb?=", the
// encoding of "한빛") is a name like any other. Through the real SMTP server, the To header carries it encoded, so
// that a strict parser (net/mail) and a lenient one (mime.WordDecoder over the whole header, as mail clients decode
// words even between quotes) both give back the literal name, and the message still goes to the one address. In
// From, the organization's name reads as written (a word joiner after "=") and no reader decodes a word of it.
func TestSMTPSend_EncodedWordNamesStayLiteral(t *testing.T) {
	srv := smtptest.Start(t, smtptest.Options{Username: "mailer", Password: "s3cret"})
	s := mustSMTP(t, smtpConfig(srv))
	lenient := new(mime.WordDecoder)
	for i, tc := range []struct{ name, decodedAs string }{
		{`=?utf-8?B?7ZWc67mb?=`, "한빛"},
		{`=?utf-8?q?Admin?=`, "Admin"},
		{`Kim =?ISO-8859-1?Q?Andr=E9?= Lee`, "André"},
		{`"=?utf-8?b?QWRtaW4=?=" <boss@evil.test>`, "Admin"},
		{strings.TrimSpace(strings.Repeat("=?utf-8?q?x?= ", 7)), "x x"}, // folded over several words
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := koreanNotification()
			n.AssertionID = fmt.Sprintf("words-%d", i)
			n.RecipientName, n.IssuerName = tc.name, tc.name
			n.Email = fmt.Sprintf("w%d@example.com", i)
			n.FromName = notify.FromDisplayName("{org} via badged", n.IssuerName)
			_, err := s.Send(context.Background(), n)
			require.NoError(t, err)
			msgs := srv.Messages()
			got := msgs[len(msgs)-1]
			require.Equal(t, []string{n.Email}, got.To, "the envelope has the recipient's address only")
			m := mustParseMail(t, got.Data)
			require.Empty(t, m.Header.Get("Bcc"), "the envelope's Bcc is never a header")
			require.Len(t, m.Header["To"], 1)

			to, err := m.Header.AddressList("To")
			require.NoError(t, err, "To: %q", m.Header.Get("To"))
			require.Len(t, to, 1)
			require.Equal(t, tc.name, to[0].Name, "net/mail gives back the literal name")
			require.Equal(t, n.Email, to[0].Address)
			decoded, err := lenient.DecodeHeader(m.Header.Get("To"))
			require.NoError(t, err)
			require.Contains(t, decoded, tc.name, "a lenient decoder too: To %q", m.Header.Get("To"))
			require.NotContains(t, strings.ReplaceAll(decoded, tc.name, ""), tc.decodedAs, "nothing decoded out of the name")

			from, err := m.Header.AddressList("From")
			require.NoError(t, err, "From: %q", m.Header.Get("From"))
			require.Len(t, from, 1)
			visible := strings.ReplaceAll(from[0].Name, "\u2060", "")
			require.Equal(t, n.FromName, visible, "From reads as the name (FromDisplayName caps it at 78 characters)")
			decoded, err = lenient.DecodeHeader(m.Header.Get("From"))
			require.NoError(t, err)
			require.Contains(t, strings.ReplaceAll(decoded, "\u2060", ""), n.FromName, "From: %q", m.Header.Get("From"))
			require.NotContains(t, strings.ReplaceAll(decoded, "\u2060", ""), tc.decodedAs+" via badged")
			require.Equal(t, "["+safetext.Display(tc.name)+"] "+n.BadgeName+" 배지가 발급되었습니다", m.Subject)
		})
	}
}
