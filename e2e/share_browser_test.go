package e2e

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
)

// shareFacts is what the sharing test reads from a badge page's share section.
type shareFacts struct {
	Links       map[string]string `json:"links"` // share button id → href
	Visible     []string          `json:"visible"`
	CopyValue   string            `json:"copyValue"`
	CopyRead    bool              `json:"copyReadOnly"`
	Selected    string            `json:"selected"` // what a select-all in the copy field selects
	Embed       string            `json:"embed"`
	ScrollWidth int               `json:"scrollWidth"`
	InnerWidth  int               `json:"innerWidth"`
	Preview     [2]int            `json:"preview"` // natural size of the live embed preview's image
}

const shareFactsJS = `(() => {
  const links = {};
  for (const a of document.querySelectorAll("#linkedin,[id^=share-]")) if (a.tagName === "A") links[a.id] = a.getAttribute("href");
  const visible = [...document.querySelectorAll("#linkedin,[id^=share-]:not(#share-copy-hint),#embed-code")].filter(e => {
    const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth; }).map(e => e.id);
  const c = document.querySelector("#share-copy");
  c.focus(); c.select();
  const img = document.querySelector("#embed-preview img");
  return {links, visible, copyValue: c.value, copyReadOnly: c.readOnly, selected: c.value.substring(c.selectionStart, c.selectionEnd),
    embed: document.querySelector("#embed-code").value, scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
    preview: img ? [img.naturalWidth, img.naturalHeight] : [0, 0]};
})()`

// embedFacts is what the test reads from a third-party page that pasted the embed snippet.
type embedFacts struct {
	Href        string `json:"href"`
	Natural     [2]int `json:"natural"`
	Shown       int    `json:"shown"`
	Name        string `json:"name"`
	Scripts     int    `json:"scripts"`
	Iframes     int    `json:"iframes"`
	ScrollWidth int    `json:"scrollWidth"`
	InnerWidth  int    `json:"innerWidth"`
}

const embedFactsJS = `(() => {
  const a = document.querySelector("main a"), img = a.querySelector("img");
  return {href: a.href, natural: [img.naturalWidth, img.naturalHeight], shown: Math.round(img.getBoundingClientRect().width),
    name: (img.alt + " " + a.textContent).trim(), scripts: document.scripts.length, iframes: document.querySelectorAll("iframe").length,
    scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth};
})()`

// TestSharing_Browser opens the share section of real badges (valid, revoked, expired) in Chromium, in Korean and
// English, at phone width (and the valid one at desktop width): the share links go to the networks with the page's
// URL and a sentence that tells a revoked or expired badge's state, the copy field selects the URL with no script,
// nothing scrolls sideways, and axe-core finds no violation. Then it pastes each embed snippet into a page of
// another origin and checks the card there: the preview image loads (1200×630), fits a phone, links to the page,
// and has no script or iframe, again with no axe violation.
func TestSharing_Browser(t *testing.T) {
	browser, axe := newBrowser(t), axeSource(t)
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	patch := s.request(t, http.MethodPatch, "/public/v3/badges/"+tn.Badge, tn.Key, map[string]string{"Content-Type": "application/json"},
		strings.NewReader(`{"name":"클라우드 네이티브 개발자 과정 수료","expirationPolicy":{"relativeExpirationMonths":12}}`))
	require.Equal(t, 200, patch.Status, "%s", patch.Raw)
	rs := emailRecipients("share", 3)
	rs[0].Name, rs[1].Name, rs[2].Name = "김하늘", "Alex Kim", "이서준"
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "share-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	rows := s.assertionRows(t, id)
	valid, revoked, expired := rows[0], rows[1], rows[2]
	res := s.postJSON(t, "/public/v3/assertions/"+revoked.ID.String()+"/cancel", tn.Key, nil, `{"reason":"issued by mistake"}`)
	require.Equal(t, "REVOKED", res.data(t)["stateCode"], "%s", res.Raw)
	later := s.APIDeps
	later.Clock = func() time.Time { return time.Now().AddDate(2, 0, 0) }
	laterSrv := httptest.NewServer(api.NewHandler(later))
	t.Cleanup(laterSrv.Close)

	type shareCase struct {
		name, base, id, lang, wantTextPrefix string
		width                                int64
		linkedInAdd                          bool
	}
	cases := []shareCase{
		{name: "valid ko phone", id: valid.ID.String(), lang: "ko", wantTextPrefix: "김하늘 님이 E2E 아카데미에서 “클라우드 네이티브 개발자 과정 수료” 배지를 받았습니다.", width: phoneWidth, linkedInAdd: true},
		{name: "valid en phone", id: valid.ID.String(), lang: "en", wantTextPrefix: "김하늘 earned the “클라우드 네이티브 개발자 과정 수료” badge from E2E 아카데미.", width: phoneWidth, linkedInAdd: true},
		{name: "valid en desktop", id: valid.ID.String(), lang: "en", wantTextPrefix: "김하늘 earned", width: desktopWidth, linkedInAdd: true},
		{name: "revoked ko phone", id: revoked.ID.String(), lang: "ko", wantTextPrefix: "[취소됨] E2E 아카데미에서 Alex Kim 님에게 발급한", width: phoneWidth},
		{name: "revoked en phone", id: revoked.ID.String(), lang: "en", wantTextPrefix: "REVOKED: the “클라우드 네이티브 개발자 과정 수료” badge of Alex Kim", width: phoneWidth},
		{name: "expired en phone", base: laterSrv.URL, id: expired.ID.String(), lang: "en", wantTextPrefix: "EXPIRED: the ", width: phoneWidth},
		{name: "expired ko phone", base: laterSrv.URL, id: expired.ID.String(), lang: "ko", wantTextPrefix: "[만료됨] ", width: phoneWidth},
	}
	snippets := map[string]string{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f shareFacts
			s.openPage(t, browser, pageCase{path: "/verify/" + c.id + "?lang=" + c.lang, base: c.base}, c.width, func(tab context.Context, status int) {
				require.Equal(t, 200, status)
				requireNoAxeViolations(t, runAxe(t, tab, axe))
				var err error
				f, err = chromedp.Run(tab, chromedp.Evaluate[shareFacts](shareFactsJS))
				require.NoError(t, err)
			})
			page := s.BaseURL + "/verify/" + c.id
			require.LessOrEqual(t, f.ScrollWidth, f.InnerWidth, "horizontal scroll at %d px", c.width)
			wantIDs := []string{"share-linkedin-post", "share-x", "share-facebook", "share-email", "share-copy", "embed-code"}
			if c.linkedInAdd {
				wantIDs = append(wantIDs, "linkedin")
			}
			require.ElementsMatch(t, wantIDs, f.Visible, "every share control is inside the viewport at %d px", c.width)
			require.Equal(t, c.linkedInAdd, f.Links["linkedin"] != "", "add to profile only for a valid badge")

			// Every share button leads through the counting redirect, asked of the server that showed the page.
			for _, id := range []string{"share-linkedin-post", "share-facebook", "share-x", "share-email"} {
				f.Links[id] = followShare(t, s.BaseURL, c.base, f.Links[id])
			}
			require.Equal(t, url.Values{"url": {page}}, mustQuery(t, f.Links["share-linkedin-post"], "https://www.linkedin.com/sharing/share-offsite/"))
			require.Equal(t, url.Values{"u": {page}}, mustQuery(t, f.Links["share-facebook"], "https://www.facebook.com/sharer/sharer.php"))
			x := mustQuery(t, f.Links["share-x"], "https://x.com/intent/post")
			require.Equal(t, page, x.Get("url"))
			require.True(t, strings.HasPrefix(x.Get("text"), c.wantTextPrefix), "X text %q, want %q…", x.Get("text"), c.wantTextPrefix)
			require.True(t, strings.HasPrefix(f.Links["share-email"], "mailto:?subject="))
			mail := mustQuery(t, strings.Replace(f.Links["share-email"], "mailto:", "mailto://x/", 1), "mailto://x/")
			require.Equal(t, x.Get("text")+"\n\n"+page, mail.Get("body"))

			require.Equal(t, page, f.CopyValue)
			require.True(t, f.CopyRead)
			require.Equal(t, page, f.Selected, "selecting the copy field selects the whole link, with no script")
			require.Equal(t, [2]int{1200, 630}, f.Preview, "the live embed preview's image loaded")
			require.Contains(t, f.Embed, `<a href="`+page+`"`)
			require.Contains(t, f.Embed, `/credentials/`+c.id+`/preview.png?lang=`+c.lang)
			require.NotContains(t, f.Embed, "<script")
			require.NotContains(t, f.Embed, "<iframe")
			snippets[c.name] = f.Embed
		})
	}

	// A blog on another origin pastes the snippets.
	for _, name := range []string{"valid ko phone", "valid en phone", "revoked en phone"} {
		snippet := snippets[name]
		require.NotEmpty(t, snippet, name)
		lang := name[strings.Index(name, " ")+1 : strings.Index(name, " ")+3]
		blog := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="%s"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title></head><body><main><h1>My badges</h1><p>%s</p></main></body></html>`, lang, html.EscapeString(name), snippet)
		}))
		t.Cleanup(blog.Close)
		for _, width := range []int64{phoneWidth, desktopWidth} {
			t.Run(fmt.Sprintf("embed %s %d", name, width), func(t *testing.T) {
				tab := newTab(t, browser, width, map[bool]int64{true: phoneHeight, false: desktopHeight}[width == phoneWidth], "")
				ctx, cancel := context.WithTimeout(tab, time.Minute)
				defer cancel()
				_, err := chromedp.Run(ctx, chromedp.NavigateResponse(blog.URL))
				require.NoError(t, err)
				f, err := chromedp.Run(ctx, chromedp.Evaluate[embedFacts](embedFactsJS))
				require.NoError(t, err)
				require.Equal(t, [2]int{1200, 630}, f.Natural, "the preview image loaded from the badge server")
				require.True(t, strings.HasPrefix(f.Href, s.BaseURL+"/verify/"), f.Href)
				require.LessOrEqual(t, f.Shown, 600)
				require.LessOrEqual(t, f.ScrollWidth, f.InnerWidth, "the card fits %d px", width)
				require.Zero(t, f.Scripts)
				require.Zero(t, f.Iframes)
				require.NotEmpty(t, f.Name)
				requireNoAxeViolations(t, runAxe(t, tab, axe))
			})
		}
	}
}

// requireNoAxeViolations fails on any axe-core violation, whatever its impact.
func requireNoAxeViolations(tb testing.TB, v []axeViolation) {
	tb.Helper()
	require.Empty(tb, v, "axe-core violations")
}

// mustQuery checks that u starts with prefix (scheme, host and path) and returns its query.
func mustQuery(tb testing.TB, u, prefix string) url.Values {
	tb.Helper()
	require.True(tb, strings.HasPrefix(u, prefix+"?"), "%q is not a %s link", u, prefix)
	parsed, err := url.Parse(u)
	require.NoError(tb, err)
	return parsed.Query()
}

// followShare asks the counting redirect behind a share button (link, under the public base URL) of the server at
// served (the public base URL itself when ""), and returns where it sends the browser.
func followShare(t *testing.T, baseURL, served, link string) string {
	t.Helper()
	require.True(t, strings.HasPrefix(link, baseURL+"/share/"), "the button goes through the counter: %s", link)
	if served == "" {
		served = baseURL
	}
	c := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(served + strings.TrimPrefix(link, baseURL))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusFound, res.StatusCode, "%s", link)
	return res.Header.Get("Location")
}
