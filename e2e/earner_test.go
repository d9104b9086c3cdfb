package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/earner"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/waitfor"
)

// earnerFacts is what the earner test reads from a loaded page.
type earnerFacts struct {
	Lang  string   `json:"lang"`
	H1    string   `json:"h1"`
	Text  string   `json:"text"`
	Fits  bool     `json:"fits"`
	Path  string   `json:"path"`
	Links []string `json:"links"`
}

const earnerFactsJS = `(() => ({lang: document.documentElement.lang, h1: (document.querySelector("h1") || {textContent: ""}).textContent.trim(),
  text: document.body.innerText, fits: document.documentElement.scrollWidth <= window.innerWidth, path: location.pathname,
  links: [...document.querySelectorAll("a[href]")].map(a => a.href)}))()`

// earnerServer is the stack's API with the earner's pages mounted: their sign-in mails go out through a mailer on
// the stack's SMTP server (the shared harness leaves the pages unmounted).
func earnerServer(t *testing.T, s *stack) *httptest.Server {
	t.Helper()
	sender, err := notify.NewSMTP(notify.SMTPConfig{Host: s.SMTP.Host, Port: s.SMTP.Port, TLS: notify.TLSMandatory,
		Auth: notify.AuthPlain, Username: smtpUser, Password: smtpPassword, From: mailFrom, MessageIDDomain: mailDomain,
		Timeout: 10 * time.Second, HELO: "e2e.badged.test",
		TLSConfig: &tls.Config{RootCAs: s.SMTP.RootCAs, ServerName: s.SMTP.Host, MinVersion: tls.VersionTLS12}})
	require.NoError(t, err)
	mailer := signin.NewMailer(sender, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { mailer.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; _ = sender.Close() })
	deps := s.APIDeps
	c := earner.SignInConfig(s.DB)
	c.BaseURL, c.Mailer = s.BaseURL, mailer
	svc, err := signin.New(c)
	require.NoError(t, err)
	deps.SignIn = api.SignIn{Service: svc}
	srv := httptest.NewServer(api.NewHandler(deps))
	t.Cleanup(srv.Close)
	return srv
}

// TestEarner_Browser is the earner's whole flow in Chromium on real issuances: the sign-in form, the mail caught
// by the test SMTP server, the link's button, the collection, a badge hidden from the profile, the same badge's page
// made private (a stranger sees the neutral private page), a handle, and the public profile listing only the badge
// shown. Every page, in English and Korean at 1280 and 375 px: axe-core finds no serious or critical violation and
// nothing scrolls sideways.
func TestEarner_Browser(t *testing.T) {
	browser, axe := newBrowser(t), axeSource(t)
	s := newStack(t)
	srv := earnerServer(t, s)
	tn, other := s.mustTenant(t, 10), s.mustTenant(t, 10) // one badge each: the same badge twice is a duplicate
	email := "earner-" + uuid.NewString()[:8] + "@example.com"
	issue := func(tn tenant) uuid.UUID {
		rs := []recipientJSON{{Name: "김하늘", Email: &email, ReceiveType: "EMAIL"}}
		id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "earner-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
		return s.assertionRows(t, id)[0].ID
	}
	hidden, shown := issue(tn), issue(other) // hidden: taken off the profile, then its page made private

	facts := func(t *testing.T, tab context.Context) earnerFacts {
		t.Helper()
		f, err := chromedp.Run(tab, chromedp.Evaluate[earnerFacts](earnerFactsJS))
		require.NoError(t, err)
		return f
	}
	// check runs axe-core and the width check on the loaded page and returns what it shows.
	check := func(t *testing.T, tab context.Context, name string) earnerFacts {
		t.Helper()
		for _, v := range runAxe(t, tab, axe) {
			require.False(t, v.Impact == "serious" || v.Impact == "critical", "%s: axe-core %s %s (%s) at %v", name, v.Impact, v.ID, v.Help, v.Nodes)
		}
		f := facts(t, tab)
		require.True(t, f.Fits, "%s: no horizontal scroll", name)
		return f
	}
	// press clicks what navigates (a form's button) and waits for the page it loads.
	press := func(t *testing.T, tab context.Context, steps ...chromedp.Action[chromedp.Void]) int {
		t.Helper()
		resp, err := chromedp.RunResponse(tab, steps...)
		require.NoError(t, err)
		return int(resp.Status)
	}
	// each opens path in fresh tabs of browser (the earner's: signed in once signed in; or a stranger's) in English
	// and Korean at both widths, checks each, and returns what each showed.
	each := func(t *testing.T, browser context.Context, name, path string, wantStatus int, want map[string]string) map[string]earnerFacts {
		t.Helper()
		out := map[string]earnerFacts{}
		for _, width := range []int64{desktopWidth, phoneWidth} {
			tab := newTab(t, browser, width, map[bool]int64{true: phoneHeight, false: desktopHeight}[width == phoneWidth], "")
			setMediaLight(t, tab)
			for _, lang := range []string{"en", "ko"} {
				label := fmt.Sprintf("%s %s %dpx", name, lang, width)
				resp, err := chromedp.Run(tab, chromedp.NavigateResponse(srv.URL+path+"?lang="+lang))
				require.NoError(t, err)
				require.Equal(t, wantStatus, int(resp.Status), label)
				f := check(t, tab, label)
				require.Equal(t, lang, f.Lang, label)
				require.Contains(t, f.Text, want[lang], label)
				out[fmt.Sprint(lang, width)] = f
			}
		}
		return out
	}

	// The sign-in form, before any session.
	each(t, browser, "sign-in form", "/earner", http.StatusOK, map[string]string{"en": "Mail me a sign-in link", "ko": "로그인 링크 받기"})

	tab := newTab(t, browser, desktopWidth, desktopHeight, "")
	setMediaLight(t, tab)
	_, err := chromedp.Run(tab, chromedp.NavigateResponse(srv.URL+"/earner?lang=en"))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, press(t, tab, chromedp.SendKeys("#email", email), chromedp.Click(`form[action="/earner/sign-in"] button`)))
	require.Contains(t, check(t, tab, "sent").H1, "Check your mail")

	// The mail, as the test SMTP server received it; its link points at the service's base URL, served here by srv.
	linkRE := regexp.MustCompile(`https?://[^\s"<>]+(/earner/sign-in/[A-Za-z0-9_-]{43})`)
	var link string
	waitfor.True(t, 30*time.Second, 20*time.Millisecond, "the sign-in mail", func() bool {
		for _, m := range s.SMTP.Messages() {
			if len(m.To) != 1 || m.To[0] != email {
				continue
			}
			_, parts, err := smtptest.Parts(m.Data)
			require.NoError(t, err)
			for _, p := range parts {
				if l := linkRE.FindStringSubmatch(string(p.Body)); l != nil {
					link = srv.URL + l[1]
				}
			}
		}
		return link != ""
	})

	// Opening the link spends nothing (a mail scanner may fetch it); its button does, and lands on the collection.
	resp, err := chromedp.Run(tab, chromedp.NavigateResponse(link))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, int(resp.Status))
	check(t, tab, "link")
	require.Equal(t, http.StatusOK, press(t, tab, chromedp.Click(`main form button`)))
	f := check(t, tab, "collection")
	require.Equal(t, "/earner", f.Path)
	require.Contains(t, f.Text, email)
	require.Contains(t, f.Text, "Your badges")

	// The link worked once: pressed again, in another browser context's tab, it answers 410 with a fresh form.
	spent := newTab(t, browser, desktopWidth, desktopHeight, "en")
	_, err = chromedp.Run(spent, chromedp.NavigateResponse(link))
	require.NoError(t, err)
	require.Equal(t, http.StatusGone, press(t, spent, chromedp.Click(`main form button`)))
	require.NoError(t, chromedp.Do(spent, chromedp.WaitVisible(`#email`)))

	// Both badges on the profile, then one taken off it, then its page made private. Each save is a form post that
	// answers the collection again (303); the boxes read back show what was saved.
	card := func(id uuid.UUID) string { return "#b-" + id.String() }
	save := func(id uuid.UUID, boxes ...string) {
		t.Helper()
		var steps []chromedp.Action[chromedp.Void]
		for _, b := range boxes {
			steps = append(steps, chromedp.Click(card(id)+` input[name="`+b+`"]`))
		}
		steps = append(steps, chromedp.Click(card(id)+` form[action="/earner/badges/`+id.String()+`"] button`))
		require.Equal(t, http.StatusOK, press(t, tab, steps...))
	}
	boxes := func(id uuid.UUID) (show, private bool) {
		t.Helper()
		got, err := chromedp.Run(tab, chromedp.Evaluate[[]bool](`["show", "private"].map(n => document.querySelector('`+card(id)+` input[name="'+n+'"]').checked)`))
		require.NoError(t, err)
		return got[0], got[1]
	}
	save(hidden, "show")
	save(shown, "show")
	show, private := boxes(hidden)
	require.True(t, show && !private)
	save(hidden, "show") // hide it from the profile
	show, private = boxes(hidden)
	require.False(t, show || private)
	save(hidden, "private") // and make its page private
	show, private = boxes(hidden)
	require.True(t, !show && private)
	show, private = boxes(shown)
	require.True(t, show && !private)
	check(t, tab, "collection after saving")

	// A stranger (another browser: none of the earner's cookies) sees the neutral private page, no name on it; the
	// shown badge's page is the badge's own.
	stranger := newBrowser(t)
	for _, f := range each(t, stranger, "private page", "/verify/"+hidden.String(), http.StatusOK,
		map[string]string{"en": "This badge is private", "ko": "비공개 배지입니다"}) {
		require.NotContains(t, f.Text, "김하늘")
		require.NotContains(t, f.Text, "E2E badge")
	}
	each(t, stranger, "shown badge page", "/verify/"+shown.String(), http.StatusOK, map[string]string{"en": "김하늘", "ko": "김하늘"})

	// A handle, made public: the profile lists the shown badge only, linked to its page; the hidden one is absent.
	handle := "haneul-" + strings.ToLower(uuid.NewString()[:6])
	require.Equal(t, http.StatusOK, press(t, tab, chromedp.SendKeys("#handle", handle), chromedp.Click(`input[name="public"]`),
		chromedp.Click(`form[action="/earner/profile"] button`)))
	f = check(t, tab, "collection with a profile")
	require.Contains(t, f.Text, "/earners/"+handle)
	each(t, browser, "collection", "/earner", http.StatusOK, map[string]string{"en": "Public profile", "ko": "공개 프로필"})
	for key, f := range each(t, stranger, "profile", "/earners/"+handle, http.StatusOK, map[string]string{"en": "E2E badge", "ko": "E2E badge"}) {
		require.Equal(t, handle, f.H1, key)
		require.Equal(t, 1, strings.Count(f.Text, "E2E badge"), "%s: one badge listed", key)
		links := strings.Join(f.Links, " ")
		require.Contains(t, links, "/verify/"+shown.String(), key)
		require.NotContains(t, links, hidden.String(), key)
	}
}
