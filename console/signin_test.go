package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/console"
	"github.com/badged/badged/internal/audit"
	"github.com/badged/badged/internal/membership"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/waitfor"
)

// letters catches what the sign-in mails.
type letters struct {
	mu  sync.Mutex
	got []notify.Letter
}

func (l *letters) SendLetter(_ context.Context, m notify.Letter) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, m)
	return nil
}

var linkRE = regexp.MustCompile(`https?://\S+/console/sign-in/\S+`)

// link waits for the n-th letter to address and returns its link, made local to srv.
func (l *letters) link(t *testing.T, n int, srvURL string) string {
	t.Helper()
	var link string
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "the sign-in letter", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		if len(l.got) < n {
			return false
		}
		link = linkRE.FindString(l.got[n-1].Text)
		return link != ""
	})
	return strings.Replace(link, apitest.BaseURL, srvURL, 1)
}

// TestConsole_MailSignIn: the console over the real mail-link sign-in: the form answers alike, the letter's link
// signs in once (a second use is refused), the session's CSRF token is the one forms need, an invitation mails a
// link that signs the invited viewer in, and signing out ends the session.
func TestConsole_MailSignIn(t *testing.T) {
	e := apitest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	mail := &letters{}
	mailer := signin.NewMailer(mail, nil, nil)
	go mailer.Run(ctx)
	cfg := console.SignInConfig(e.DB)
	cfg.BaseURL, cfg.Mailer = apitest.BaseURL, mailer
	svc, err := signin.New(cfg)
	require.NoError(t, err)
	srv := e.ConsoleServer(t, console.NewMailSignIn(svc))
	_, _, err = membership.Add(ctx, e.DB, e.Org.ID, owner, "ORG_OWNER", audit.Event{Actor: audit.AdminActor})
	require.NoError(t, err)

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(srv.URL+"/console/sign-in", url.Values{"email": {owner}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	link := mail.link(t, 1, srv.URL)

	res, err = c.Get(link)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	res, err = c.Get(link)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusGone, res.StatusCode, "a link works once")

	page := getBody(t, c, srv.URL+"/console/members")
	token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	require.NotNil(t, token, page)
	res, err = c.PostForm(srv.URL+"/console/members", url.Values{"csrf": {token[1]}, "email": {viewer}, "role": {"ORG_VIEWER"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	invite := mail.link(t, 2, srv.URL)

	jar2, _ := cookiejar.New(nil)
	v := &http.Client{Jar: jar2, CheckRedirect: c.CheckRedirect}
	res, err = v.Get(invite)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	keys := getBody(t, v, srv.URL+"/console/keys")
	require.Contains(t, keys, "ORG_VIEWER")
	require.NotContains(t, keys, `action="/console/keys"`)
	vtoken := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(keys)[1]
	res, err = v.PostForm(srv.URL+"/console/keys", url.Values{"csrf": {vtoken}, "name": {"x"}, "role": {"ORG_VIEWER"}, "mode": {"live"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusForbidden, res.StatusCode, "a viewer's forged post")
	res, err = c.PostForm(srv.URL+"/console/keys", url.Values{"csrf": {vtoken}, "name": {"x"}, "role": {"ORG_VIEWER"}, "mode": {"live"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusForbidden, res.StatusCode, "another session's token")

	res, err = c.PostForm(srv.URL+"/console/sign-out", url.Values{"csrf": {token[1]}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	res, err = c.Get(srv.URL + "/console/keys")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/console/sign-in", res.Header.Get("Location"))
}

func getBody(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	res, err := c.Get(u)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, u)
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(raw)
}
