package signin_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/waitfor"
)

// node is one API process: its own pool, mail sender, mailer and services, on the shared database.
type node struct {
	earner, console *signin.Service
}

type rig struct {
	smtp  *smtptest.Server
	nodes [2]node
	clock *clock
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// known is the only address Eligible admits, as the earner's "holds a credential" would.
const known = "holder@example.org"

func newRig(t *testing.T, perAddress, perClient int) *rig {
	t.Helper()
	d0 := dbtest.New(t)
	srv := smtptest.Start(t, smtptest.Options{})
	rg := &rig{smtp: srv, clock: &clock{t: time.Now()}}
	for i := range rg.nodes {
		d := d0
		if i > 0 { // a second process: a pool of its own on the same database
			var err error
			d, err = db.Open(context.Background(), dbtest.URL(t, d0))
			require.NoError(t, err)
			t.Cleanup(d.Close)
		}
		sender, err := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, TLS: notify.TLSMandatory,
			From: "Badged <noreply@badged.example>", Timeout: 5 * time.Second,
			TLSConfig: &tls.Config{RootCAs: srv.RootCAs, MinVersion: tls.VersionTLS12}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = sender.Close() })
		mailer := signin.NewMailer(sender, nil, nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { mailer.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
		mk := func(aud signin.Audience, prefix string) *signin.Service {
			s, err := signin.New(signin.Config{DB: d, Audience: aud, BaseURL: "https://badges.example", Prefix: prefix,
				Mailer: mailer, PerAddress: perAddress, PerClient: perClient, Clock: rg.clock.now,
				Eligible: func(_ context.Context, a string) (bool, error) {
					return a == known || strings.HasSuffix(a, "@client.example"), nil
				}})
			require.NoError(t, err)
			return s
		}
		rg.nodes[i] = node{earner: mk(signin.Earner, "/earner"), console: mk(signin.Console, "/console")}
	}
	return rg
}

func request(client string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/earner/sign-in", nil)
	r.RemoteAddr = client + ":40000"
	return r
}

var linkRE = regexp.MustCompile(`https://badges\.example(/[a-z]+)/sign-in/([A-Za-z0-9_-]{43})`)

// links returns the sign-in links the SMTP server received for address, oldest first.
func (rg *rig) links(t *testing.T, address string) []string {
	t.Helper()
	var out []string
	for _, m := range rg.smtp.Messages() {
		if len(m.To) != 1 || m.To[0] != address {
			continue
		}
		_, parts, err := smtptest.Parts(m.Data)
		require.NoError(t, err)
		for _, p := range parts {
			if mm := linkRE.FindStringSubmatch(string(p.Body)); mm != nil {
				out = append(out, mm[2])
			}
		}
	}
	return out
}

// redeem follows token on svc and returns the cookie it set.
func redeem(t *testing.T, svc *signin.Service, token string) (*http.Cookie, signin.Session, error) {
	t.Helper()
	w := httptest.NewRecorder()
	sess, err := svc.Redeem(context.Background(), w, httptest.NewRequest(http.MethodGet, "/x", nil), token)
	if err != nil {
		return nil, sess, err
	}
	cs := w.Result().Cookies()
	require.Len(t, cs, 1)
	return cs[0], sess, nil
}

func withCookie(c *http.Cookie) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/earner", nil)
	r.AddCookie(c)
	return r
}

func TestSignIn_TwoProcesses_LinkOnceSessionEverywhere(t *testing.T) {
	rg := newRig(t, 5, 30)
	a, b := rg.nodes[0], rg.nodes[1]
	ctx := context.Background()

	// Known and unknown addresses get the same answer; only the known one gets a mail.
	require.NoError(t, a.earner.Request(ctx, request("203.0.113.1"), "  Holder@Example.org ", "en"))
	require.NoError(t, a.earner.Request(ctx, request("203.0.113.1"), "nobody@example.org", "en"))
	require.ErrorIs(t, a.earner.Request(ctx, request("203.0.113.1"), "not an address", "en"), signin.ErrBadAddress)
	var token string
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "the sign-in mail", func() bool {
		l := rg.links(t, known)
		if len(l) == 1 {
			token = l[0]
		}
		return token != ""
	})
	require.Empty(t, rg.links(t, "nobody@example.org"))

	// The link of the earner audience opens nothing in the console, and works once across processes.
	_, _, err := redeem(t, b.console, token)
	require.ErrorIs(t, err, signin.ErrLinkInvalid)
	cookie, sess, err := redeem(t, b.earner, token)
	require.NoError(t, err)
	require.Equal(t, known, sess.Email)
	require.True(t, cookie.HttpOnly)
	require.True(t, cookie.Secure)
	require.Equal(t, http.SameSiteLaxMode, cookie.SameSite)
	require.Equal(t, "/earner", cookie.Path)
	_, _, err = redeem(t, a.earner, token)
	require.ErrorIs(t, err, signin.ErrLinkInvalid)

	// The session made on b is known on a; never in the console, even under the console's cookie name.
	got, ok := a.earner.Current(withCookie(cookie))
	require.True(t, ok)
	require.Equal(t, sess.CSRF, got.CSRF)
	_, ok = a.console.Current(withCookie(&http.Cookie{Name: "badged_console", Value: cookie.Value}))
	require.False(t, ok)

	// A forged cookie, or one of another shape, opens nothing.
	for _, v := range []string{"", "x", strings.Repeat("A", 43), cookie.Value[:42] + "!", strings.Repeat("A", 10000)} {
		_, ok := a.earner.Current(withCookie(&http.Cookie{Name: cookie.Name, Value: url.QueryEscape(v)}))
		require.False(t, ok, "cookie %q", v)
	}

	// CSRF: the session's token, and nothing else.
	form := func(v string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/earner/x", strings.NewReader(url.Values{"csrf": {v}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return r
	}
	require.True(t, a.earner.CheckCSRF(form(sess.CSRF), got))
	require.False(t, a.earner.CheckCSRF(form(""), got))
	require.False(t, a.earner.CheckCSRF(form(sess.CSRF[:42]+"A"), got))

	// Sign out everywhere on a ends the session on b.
	require.NoError(t, a.earner.SignOutEverywhere(ctx, httptest.NewRecorder(), got))
	_, ok = b.earner.Current(withCookie(cookie))
	require.False(t, ok)
}

func TestSignIn_NewSessionAtSignInIdleExpiryAndSignOut(t *testing.T) {
	rg := newRig(t, 5, 30)
	a := rg.nodes[0]
	ctx := context.Background()
	for range 2 {
		require.NoError(t, a.earner.Request(ctx, request("203.0.113.2"), known, "ko"))
	}
	var tokens []string
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "two sign-in mails", func() bool {
		tokens = rg.links(t, known)
		return len(tokens) == 2
	})
	first, _, err := redeem(t, a.earner, tokens[0])
	require.NoError(t, err)
	// Signing in again from the same browser gives a new id and ends the old one (no fixation).
	w := httptest.NewRecorder()
	_, err = a.earner.Redeem(ctx, w, withCookie(first), tokens[1])
	require.NoError(t, err)
	second := w.Result().Cookies()[0]
	require.NotEqual(t, first.Value, second.Value)
	_, ok := a.earner.Current(withCookie(first))
	require.False(t, ok)
	_, ok = a.earner.Current(withCookie(second))
	require.True(t, ok)

	// Activity keeps it; idleness ends it.
	rg.clock.add(signin.DefaultIdle - time.Minute)
	_, ok = a.earner.Current(withCookie(second))
	require.True(t, ok)
	rg.clock.add(signin.DefaultIdle + time.Second)
	_, ok = a.earner.Current(withCookie(second))
	require.False(t, ok)
}

func TestSignIn_LinkExpires(t *testing.T) {
	rg := newRig(t, 5, 30)
	a := rg.nodes[0]
	require.NoError(t, a.earner.Request(context.Background(), request("203.0.113.3"), known, "en"))
	var tokens []string
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "the sign-in mail", func() bool {
		tokens = rg.links(t, known)
		return len(tokens) == 1
	})
	rg.clock.add(signin.DefaultLinkTTL + time.Second)
	_, _, err := redeem(t, a.earner, tokens[0])
	require.ErrorIs(t, err, signin.ErrLinkInvalid)
}

func TestSignIn_LimitsHoldAcrossProcesses(t *testing.T) {
	rg := newRig(t, 3, 4)
	ctx := context.Background()
	// Per address: 6 requests from different clients, alternating processes: 3 mails.
	for i := range 6 {
		require.NoError(t, rg.nodes[i%2].earner.Request(ctx, request("198.51.100."+string(rune('1'+i))), known, "en"))
	}
	// Per client: one client, many addresses (all answered alike), alternating processes: 4 counted.
	for i := range 8 {
		require.NoError(t, rg.nodes[i%2].earner.Request(ctx, request("192.0.2.9"), "x"+string(rune('a'+i))+"@client.example", "en"))
	}
	// The console's invitation says when the address is over.
	var limited int
	for range 4 {
		if err := rg.nodes[0].console.Invite(ctx, "invitee@example.org", "en", nil); err != nil {
			require.ErrorIs(t, err, signin.ErrLimited)
			limited++
		}
	}
	require.Equal(t, 1, limited)
	clientMails := func() int {
		n := 0
		for i := range 8 {
			n += len(rg.links(t, "x"+string(rune('a'+i))+"@client.example"))
		}
		return n
	}
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "the mails within the limits", func() bool {
		return len(rg.links(t, known)) == 3 && len(rg.links(t, "invitee@example.org")) == 3 && clientMails() == 4
	})
	// Nothing more arrives: the requests beyond the limits were never queued.
	require.Len(t, rg.links(t, known), 3)
	require.Equal(t, 4, clientMails())
}

func TestSignIn_InviteTextIsTheCallers(t *testing.T) {
	rg := newRig(t, 5, 30)
	err := rg.nodes[1].console.Invite(context.Background(), "new.member@example.org", "en",
		func(lang, link string) (string, string) {
			return "Join Acme on badged", "You are invited.\n" + link + "\n"
		})
	require.NoError(t, err)
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "the invitation", func() bool {
		return len(rg.links(t, "new.member@example.org")) == 1
	})
	m := rg.smtp.Messages()[0]
	h, _, err := smtptest.Parts(m.Data)
	require.NoError(t, err)
	require.Equal(t, "Join Acme on badged", h.Get("Subject"))
	token := rg.links(t, "new.member@example.org")[0]
	_, _, err = redeem(t, rg.nodes[0].earner, token)
	require.ErrorIs(t, err, signin.ErrLinkInvalid, "a console invitation never opens the earner's pages")
	_, sess, err := redeem(t, rg.nodes[0].console, token)
	require.NoError(t, err)
	require.Equal(t, signin.Console, sess.Audience)
}

func TestNormalize(t *testing.T) {
	for _, bad := range []string{"", "a", "a@b", "@b.c", "a@.b.c", "a@b.c.", "A <a@b.c>", "a@b.c\r\nBcc: x@y.z",
		"a\x00@b.c", "a b@c.d", strings.Repeat("a", 250) + "@b.cd", "a@[127.0.0.1]", "\"a b\"@c.d "} {
		_, ok := signin.Normalize(bad)
		require.False(t, ok, "%q", bad)
	}
	got, ok := signin.Normalize(" Jane.Doe+x@Example.ORG ")
	require.True(t, ok)
	require.Equal(t, "jane.doe+x@example.org", got)
}
