package e2e

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/console"
	"github.com/badged/badged/internal/audit"
	"github.com/badged/badged/internal/membership"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/waitfor"
)

// consoleLetters catches the console's sign-in letters.
type consoleLetters struct {
	mu  sync.Mutex
	got []notify.Letter
}

func (l *consoleLetters) SendLetter(_ context.Context, m notify.Letter) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, m)
	return nil
}

var consoleLinkRE = regexp.MustCompile(`https?://\S+/console/sign-in/\S+`)

func (l *consoleLetters) link(t *testing.T, n int, base string) string {
	t.Helper()
	var link string
	waitfor.True(t, 10*time.Second, 20*time.Millisecond, "the sign-in letter", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		if len(l.got) >= n {
			link = consoleLinkRE.FindString(l.got[n-1].Text)
		}
		return link != ""
	})
	return strings.Replace(link, apitest.BaseURL, base, 1)
}

// TestConsole_Browser: in headless Chromium, the owner signs in from the mailed link, creates a live manager key
// (shown once), which works on /public/v3/organization; revoked in the console it answers 401. The owner invites a
// viewer, who signs in from their mail and finds no way to create a key, and a forged form post is refused. axe-core
// finds no serious or critical violation on the console's pages at 1280 and 375 px, in Korean and English.
func TestConsole_Browser(t *testing.T) {
	e := apitest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	mail := &consoleLetters{}
	mailer := signin.NewMailer(mail, nil, nil)
	go mailer.Run(ctx)
	cfg := console.SignInConfig(e.DB)
	cfg.BaseURL, cfg.Mailer = apitest.BaseURL, mailer
	svc, err := signin.New(cfg)
	require.NoError(t, err)
	srv := e.ConsoleServer(t, console.NewMailSignIn(svc))
	_, _, err = membership.Add(ctx, e.DB, e.Org.ID, "owner@acme.test", "ORG_OWNER", audit.Event{Actor: audit.AdminActor})
	require.NoError(t, err)
	e.IssueSigned(t, "Kim Minji", "minji@example.test")

	browser, axe := newBrowser(t), axeSource(t)
	tab := newTab(t, browser, desktopWidth, desktopHeight, "")
	open := func(path string) {
		t.Helper()
		_, err := chromedp.Run(tab, chromedp.NavigateResponse(srv.URL+path))
		require.NoError(t, err)
	}
	eval := func(js string) string {
		t.Helper()
		out, err := chromedp.Run(tab, chromedp.Evaluate[string](js))
		require.NoError(t, err, js)
		return out
	}
	// submit fills the form matching sel (field name → value) and submits it, then waits for the next page.
	submit := func(sel string, fields map[string]string) {
		t.Helper()
		js := `(() => { const f = document.querySelector(` + jsString(sel) + `); window.__old = true;`
		for k, v := range fields {
			js += `f.elements[` + jsString(k) + `].value = ` + jsString(v) + `;`
		}
		eval(js + `f.submit(); return "ok"; })()`)
		waitfor.True(t, 10*time.Second, 20*time.Millisecond, "the next page", func() bool {
			out, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.readyState === "complete" && window.__old === undefined`))
			return err == nil && out
		})
	}

	open("/console/sign-in")
	submit(`form[action="/console/sign-in"]`, map[string]string{"email": "owner@acme.test"})
	open(strings.TrimPrefix(mail.link(t, 1, srv.URL), srv.URL))
	require.Contains(t, eval(`location.pathname`), "/console/issuances")

	open("/console/keys")
	submit(`form[action="/console/keys"]`, map[string]string{"name": "Browser key", "role": "ORG_MANAGER", "mode": "live"})
	key := eval(`document.querySelector("#new-key").textContent.trim()`)
	require.Regexp(t, `^bdg_live_`, key)
	r := e.Request(t, http.MethodGet, "/public/v3/organization", key, "", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)

	open("/console/keys")
	require.NotContains(t, eval(`document.body.innerText`), key, "shown once")
	submit(`form[action$="/revoke"]`, nil)
	r = e.Request(t, http.MethodGet, "/public/v3/organization", key, "", nil)
	require.Equal(t, http.StatusUnauthorized, r.Status, "revoked in the console: 401 on the next request")

	for _, lang := range []string{"en", "ko"} {
		for _, width := range []int64{desktopWidth, phoneWidth} {
			height := map[bool]int64{true: phoneHeight, false: desktopHeight}[width == phoneWidth]
			t.Run(lang+"/"+map[bool]string{true: "phone", false: "desktop"}[width == phoneWidth], func(t *testing.T) {
				// The owner's session cookie is the browser's: a new tab of it is still signed in.
				page := newTab(t, browser, width, height, "")
				for _, path := range []string{"/console/keys", "/console/members", "/console/issuances", "/console/credits", "/console/audit"} {
					_, err := chromedp.Run(page, chromedp.NavigateResponse(srv.URL+path+"?lang="+lang))
					require.NoError(t, err)
					var serious []axeViolation
					for _, v := range runAxe(t, page, axe) {
						if v.Impact == "serious" || v.Impact == "critical" {
							serious = append(serious, v)
						}
					}
					require.Empty(t, serious, "axe-core on %s (%s, %d px)", path, lang, width)
				}
			})
		}
	}

	open("/console/members")
	submit(`form[action="/console/members"]`, map[string]string{"email": "viewer@acme.test", "role": "ORG_VIEWER"})
	open(strings.TrimPrefix(mail.link(t, 2, srv.URL), srv.URL)) // the viewer's session replaces the owner's
	open("/console/keys")
	require.Equal(t, "none", eval(`document.querySelector('form[action="/console/keys"]') ? "form" : "none"`), "no way to create a key")
	require.Equal(t, "none", eval(`document.querySelector('form[action$="/revoke"]') ? "form" : "none"`))
	// A forged form: the viewer's own valid CSRF token, posted to the creation route anyway.
	eval(`(() => { const f = document.createElement("form"); f.method = "post"; f.action = "/console/keys";
		const add = (n, v) => { const i = document.createElement("input"); i.type = "hidden"; i.name = n; i.value = v; f.appendChild(i); };
		add("csrf", document.querySelector('input[name="csrf"]').value); add("name", "forged"); add("role", "ORG_VIEWER"); add("mode", "live");
		document.body.appendChild(f); window.__old = true; f.submit(); return "ok"; })()`)
	waitfor.True(t, 10*time.Second, 20*time.Millisecond, "the answer", func() bool {
		out, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.readyState === "complete" && window.__old === undefined`))
		return err == nil && out
	})
	require.Contains(t, eval(`document.querySelector("h1").textContent`), "Not allowed")
	var n int
	require.NoError(t, e.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM api_keys WHERE name = 'forged'").Scan(&n))
	require.Zero(t, n)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
