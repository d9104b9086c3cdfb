package e2e

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db"
)

// pageFacts is what the browser test reads from a rendered badge page in one evaluation.
type pageFacts struct {
	Lang string   `json:"lang"`
	H1   string   `json:"h1"`
	Text string   `json:"text"`
	Meta struct { // Open Graph and Twitter card values; "" when absent
		OGTitle, OGDescription, OGImage, OGURL, TwitterCard string
	} `json:"meta"`
	LinkedIn      string   `json:"linkedIn"`
	Links         []string `json:"links"`
	ScrollWidth   int      `json:"scrollWidth"`
	InnerWidth    int      `json:"innerWidth"`
	DetailsOpen   *bool    `json:"detailsOpen"`
	ChecksText    string   `json:"checksText"`
	BrokenImages  []string `json:"brokenImages"`
	HeadingLevels []int    `json:"headingLevels"`
	Scripts       int      `json:"scripts"`
	// SplitWords are the words of headings that the browser broke across two lines (Korean breaks between any
	// two syllables unless word-break: keep-all).
	SplitWords []string `json:"splitWords"`
}

const pageFactsJS = `(() => {
  const m = n => { const e = document.querySelector('meta[property="' + n + '"],meta[name="' + n + '"]'); return e ? e.content : ""; };
  const d = document.querySelector("details"), li = document.querySelector("#linkedin");
  return {lang: document.documentElement.lang, h1: document.querySelector("h1").textContent.trim(), text: document.body.innerText,
    meta: {OGTitle: m("og:title"), OGDescription: m("og:description"), OGImage: m("og:image"), OGURL: m("og:url"), TwitterCard: m("twitter:card")},
    linkedIn: li ? li.getAttribute("href") : "", links: [...document.querySelectorAll("a[href]")].map(a => a.href),
    scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
    detailsOpen: d ? d.open : null, checksText: d ? d.textContent : "",
    brokenImages: [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
    headingLevels: [...document.querySelectorAll("h1,h2,h3,h4,h5,h6")].map(h => +h.tagName[1]),
    scripts: document.scripts.length, splitWords: splitWords()};
  function splitWords() {
    const out = [];
    for (const h of document.querySelectorAll("h1,h2,h3")) {
      const walk = document.createTreeWalker(h, NodeFilter.SHOW_TEXT);
      for (let n; (n = walk.nextNode());) {
        for (const m of n.data.matchAll(/\S+/g)) {
          const r = document.createRange();
          r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
          const tops = new Set([...r.getClientRects()].filter(b => b.width > 0).map(b => Math.round(b.top)));
          if (tops.size > 1) out.push(m[0]);
        }
      }
    }
    return out;
  }
})()`

// pageCase is one page the browser opens.
type pageCase struct {
	name, path, acceptLanguage, wantLang string
	base                                 string // the server's URL; "" is the stack's
	wantStatus                           int
	wantH1                               string   // a prefix of the verdict heading
	wantText                             []string // also on the page
	notText                              []string // nowhere on the page
	linkedIn                             bool
	screenshot                           string // file name under BADGED_SCREENSHOTS ("" none)
}

// TestBadgePage_Browser opens the badge pages of a real issuance (valid, revoked with a reason, expired, unknown)
// in Chromium, in English and Korean, at desktop and phone width, and checks what a person and a link preview see,
// and that axe-core finds no serious or critical accessibility problem. The expired badge is a real one: the badge
// expires a year after issue, and its page is opened from a server whose clock runs two years ahead.
func TestBadgePage_Browser(t *testing.T) {
	browser, axe := newBrowser(t), axeSource(t)
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	ctx := context.Background()
	logo := uuid.MustParse(s.mustUpload(t, tn.Key))
	_, err := s.DB.UpdateOrganizationProfile(ctx, db.UpdateOrganizationProfileParams{ID: tn.Org.ID,
		WebsiteUrl: ptr("https://academy.example/"), LogoMediaID: &logo})
	require.NoError(t, err)
	// A Korean name of long words: at 375 px it wraps, and breaks inside a word unless word-break: keep-all.
	const badgeName = "클라우드 네이티브 애플리케이션 개발자 전문과정 수료"
	patch := s.request(t, http.MethodPatch, "/public/v3/badges/"+tn.Badge, tn.Key, map[string]string{"Content-Type": "application/json"},
		strings.NewReader(`{"name":"`+badgeName+`","expirationPolicy":{"relativeExpirationMonths":12}}`))
	require.Equal(t, 200, patch.Status, "%s", patch.Raw)

	rs := emailRecipients("page", 3)
	rs[0].Name, rs[1].Name, rs[2].Name = "김하늘", "Alex Kim", "이서준"
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "page-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	rows := s.assertionRows(t, id)
	valid, revoked, expired := rows[0], rows[1], rows[2]

	const reason = "Awarded by mistake: the final module was not submitted (최종 과제 미제출)"
	res := s.postJSON(t, "/public/v3/assertions/"+revoked.ID.String()+"/cancel", tn.Key, nil, `{"reason":"`+reason+`"}`)
	require.Equal(t, "REVOKED", res.data(t)["stateCode"], "%s", res.Raw)
	revokedOn := time.Now().In(seoul(t)).Format("January 2, 2006") + " (KST)"
	later := s.APIDeps
	later.Clock = func() time.Time { return time.Now().AddDate(2, 0, 0) }
	laterSrv := httptest.NewServer(api.NewHandler(later))
	t.Cleanup(laterSrv.Close)
	expiresOn := expired.ExpiredAt.In(seoul(t))
	ko := func(t time.Time) string { return fmt.Sprintf("%d년 %d월 %d일 (KST)", t.Year(), t.Month(), t.Day()) }

	unknown := "/verify/" + uuid.NewString()
	cases := []pageCase{
		{name: "valid en", path: "/verify/" + valid.ID.String(), wantLang: "en", wantStatus: 200, wantH1: "This badge is valid",
			wantText: []string{"김하늘", badgeName, "Finish all modules", "Go", "E2E program", "E2E 아카데미", "Add to LinkedIn profile",
				"The signed credential names the recipient", "Signed in the credential", "Issued on\n" + valid.IssuedAt.In(seoul(t)).Format("January 2, 2006") + " (KST)"},
			linkedIn: true, screenshot: "valid-en"},
		{name: "valid ko by query", path: "/verify/" + valid.ID.String() + "?lang=ko", acceptLanguage: "en-US,en;q=0.9",
			wantLang: "ko", wantStatus: 200, wantH1: "이 배지는 유효합니다", wantText: []string{"취득 기준", "LinkedIn 프로필에 추가", "자격 증명에 서명된 정보"},
			linkedIn: true, screenshot: "valid-ko"},
		{name: "valid ko by Accept-Language", path: "/credentials/" + valid.ID.String(), acceptLanguage: "fr;q=1,ko-KR;q=0.8,en;q=0.5",
			wantLang: "ko", wantStatus: 200, wantH1: "이 배지는 유효합니다", linkedIn: true},
		{name: "revoked en", path: "/verify/" + revoked.ID.String(), wantLang: "en", wantStatus: 200,
			wantH1: "This badge was revoked on " + revokedOn, wantText: []string{"The issuer revoked it because: " + reason}, screenshot: "revoked-en"},
		{name: "revoked ko", path: "/verify/" + revoked.ID.String(), acceptLanguage: "ko", wantLang: "ko", wantStatus: 200,
			wantH1: "이 배지는 ", wantText: []string{"취소 사유: " + reason}, screenshot: "revoked-ko"},
		{name: "expired en", base: laterSrv.URL, path: "/verify/" + expired.ID.String(), wantLang: "en", wantStatus: 200,
			wantH1: "This badge expired on " + expiresOn.Format("January 2, 2006") + " (KST)", screenshot: "expired-en"},
		{name: "expired ko", base: laterSrv.URL, path: "/verify/" + expired.ID.String() + "?lang=ko", wantLang: "ko", wantStatus: 200,
			wantH1: "이 배지는 " + ko(expiresOn) + "에 만료되었습니다"},
		{name: "unknown en", path: unknown, wantLang: "en", wantStatus: 404, wantH1: "We could not find this badge",
			notText: []string{"checked the badge"}, screenshot: "unknown-en"},
		{name: "unknown ko", path: unknown + "?lang=ko", wantLang: "ko", wantStatus: 404, wantH1: "이 배지를 찾을 수 없습니다",
			notText: []string{"검증했습니다"}},
	}
	for _, c := range cases {
		for _, width := range []int64{desktopWidth, phoneWidth} {
			t.Run(c.name+" "+strconv.Itoa(int(width)), func(t *testing.T) {
				s.checkPage(t, browser, axe, c, width)
			})
		}
	}
	t.Run("LinkedIn link", func(t *testing.T) {
		f := s.openPage(t, browser, cases[0], desktopWidth)
		f.LinkedIn = followShare(t, s.BaseURL, "", f.LinkedIn) // through the share counter
		u, err := url.Parse(f.LinkedIn)
		require.NoError(t, err)
		require.Equal(t, "https://www.linkedin.com/profile/add", u.Scheme+"://"+u.Host+u.Path)
		issued, exp := valid.IssuedAt.In(seoul(t)), valid.ExpiredAt.In(seoul(t))
		require.Equal(t, url.Values{"startTask": {"CERTIFICATION_NAME"}, "name": {badgeName}, "organizationName": {"E2E 아카데미"},
			"issueYear": {strconv.Itoa(issued.Year())}, "issueMonth": {strconv.Itoa(int(issued.Month()))},
			"expirationYear": {strconv.Itoa(exp.Year())}, "expirationMonth": {strconv.Itoa(int(exp.Month()))},
			"certUrl": {s.BaseURL + "/verify/" + valid.ID.String()}, "certId": {valid.SerialNumber}}, u.Query())
		require.Contains(t, f.LinkedIn, "organizationName=E2E+%EC%95%84%EC%B9%B4%EB%8D%B0%EB%AF%B8", "Hangul is percent-encoded")
		require.True(t, strings.HasPrefix(f.LinkedIn, "https://www.linkedin.com/profile/add?startTask=CERTIFICATION_NAME&name="))
	})
	t.Run("downloads", func(t *testing.T) {
		f := s.openPage(t, browser, cases[0], desktopWidth)
		want := []string{s.BaseURL + "/credentials/" + valid.ID.String() + "/image", s.BaseURL + "/credentials/" + valid.ID.String(),
			s.BaseURL + "/credentials/" + valid.ID.String() + "/receipt"}
		for _, w := range want {
			require.Contains(t, f.Links, w)
		}
		require.Contains(t, f.Links, "https://academy.example/", "the issuer's website")
		for _, l := range f.Links {
			require.NotContains(t, l, "certificate.pdf", "the recipient's certificate link stays with the recipient")
			require.NotContains(t, l, valid.CertificateToken.String())
		}
	})
}

// checkPage opens one case at one width and checks it.
func (s *stack) checkPage(t *testing.T, browser context.Context, axe string, c pageCase, width int64) {
	f := s.openPage(t, browser, c, width, func(tab context.Context, status int) {
		require.Equal(t, c.wantStatus, status, "HTTP status")
		violations := runAxe(t, tab, axe)
		var serious []axeViolation
		for _, v := range violations {
			if v.Impact == "serious" || v.Impact == "critical" {
				serious = append(serious, v)
			}
		}
		require.Empty(t, serious, "axe-core: serious or critical accessibility violations")
		if dir := os.Getenv("BADGED_SCREENSHOTS"); dir != "" && c.screenshot != "" && (width == desktopWidth || c.screenshot == "valid-ko" || c.screenshot == "revoked-en") {
			name := c.screenshot
			if width == phoneWidth {
				name += "-phone"
			}
			png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
		}
	})
	require.Equal(t, c.wantLang, f.Lang, "<html lang>")
	require.True(t, strings.HasPrefix(f.H1, c.wantH1), "verdict %q, want it to start with %q", f.H1, c.wantH1)
	for _, w := range c.wantText {
		require.Contains(t, f.Text, w)
	}
	for _, w := range c.notText {
		require.NotContains(t, f.Text, w)
	}
	require.Empty(t, f.SplitWords, "heading words broken across lines at %d px", width)
	require.LessOrEqual(t, f.ScrollWidth, f.InnerWidth, "horizontal scroll at %d px", width)
	require.Empty(t, f.BrokenImages, "images that did not load")
	require.Zero(t, f.Scripts, "the page runs no script")
	require.Equal(t, 1, f.HeadingLevels[0], "the verdict is the h1")
	for i := 1; i < len(f.HeadingLevels); i++ {
		require.LessOrEqual(t, f.HeadingLevels[i], f.HeadingLevels[i-1]+1, "heading levels skip: %v", f.HeadingLevels)
	}
	require.Equal(t, c.linkedIn, f.LinkedIn != "", "LinkedIn link offered only for a valid badge")
	if c.wantStatus == 404 {
		require.Empty(t, f.Meta.OGTitle, "no preview for an unknown badge")
		return
	}
	require.NotNil(t, f.DetailsOpen)
	require.False(t, *f.DetailsOpen, "the technical checks are folded")
	require.Contains(t, f.ChecksText, map[string]string{"en": "Signature", "ko": "서명"}[c.wantLang])
	require.Equal(t, "summary_large_image", f.Meta.TwitterCard)
	require.NotEmpty(t, f.Meta.OGTitle)
	require.True(t, strings.HasPrefix(f.Meta.OGDescription, f.H1), "og:description starts with the verdict: %q", f.Meta.OGDescription)
	require.True(t, strings.HasPrefix(f.Meta.OGImage, s.BaseURL+"/credentials/") && strings.HasSuffix(f.Meta.OGImage, "/preview.png?lang="+c.wantLang),
		"og:image is the absolute URL of the preview in the page's language: %q", f.Meta.OGImage)
	img := s.get(t, f.Meta.OGImage, "", "")
	require.Equal(t, 200, img.Status, "og:image is served")
	require.Equal(t, "image/png", img.Header.Get("Content-Type"))
	require.True(t, strings.HasPrefix(f.Meta.OGURL, s.BaseURL+"/verify/"), "og:url: %q", f.Meta.OGURL)
}

// openPage loads a case in a new tab at width, runs more checks on the loaded tab, and returns what it shows.
func (s *stack) openPage(t *testing.T, browser context.Context, c pageCase, width int64, more ...func(tab context.Context, status int)) pageFacts {
	t.Helper()
	tab := newTab(t, browser, width, map[bool]int64{true: phoneHeight, false: desktopHeight}[width == phoneWidth], c.acceptLanguage)
	setMediaLight(t, tab)
	resp, err := chromedp.Run(tab, chromedp.NavigateResponse(cmp.Or(c.base, s.BaseURL)+c.path))
	require.NoError(t, err)
	f, err := chromedp.Run(tab, chromedp.Evaluate[pageFacts](pageFactsJS))
	require.NoError(t, err)
	for _, fn := range more {
		fn(tab, int(resp.Status))
	}
	return f
}

func seoul(tb testing.TB) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation("Asia/Seoul")
	require.NoError(tb, err)
	return loc
}
