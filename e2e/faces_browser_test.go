package e2e

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
)

// facesFacts is what the browser reads from an organization or badge page.
type facesFacts struct {
	Lang          string   `json:"lang"`
	H1            string   `json:"h1"`
	Text          string   `json:"text"`
	OGTitle       string   `json:"ogTitle"`
	ScrollWidth   int      `json:"scrollWidth"`
	InnerWidth    int      `json:"innerWidth"`
	BrokenImages  []string `json:"brokenImages"`
	HeadingLevels []int    `json:"headingLevels"`
	Scripts       int      `json:"scripts"`
}

const facesFactsJS = `(() => {
  const og = document.querySelector('meta[property="og:title"]');
  return {lang: document.documentElement.lang, h1: document.querySelector("h1").textContent.trim(), text: document.body.innerText,
    ogTitle: og ? og.content : "", scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
    brokenImages: [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
    headingLevels: [...document.querySelectorAll("h1,h2,h3,h4,h5,h6")].map(h => +h.tagName[1]),
    scripts: document.scripts.length};
})()`

// TestFaces_Browser opens the organization's page and a badge's page (and the 404 of an unknown badge) in Chromium,
// in English and Korean, at 1280 and 375 px: axe-core finds no serious or critical problem, nothing scrolls
// sideways, every image loads, headings do not skip a level, no script runs, and the texts are the page's language.
func TestFaces_Browser(t *testing.T) {
	browser, axe := newBrowser(t), axeSource(t)
	e := apitest.New(t)
	ctx := context.Background()
	// The fixture's image and a logo, stored as the media route serves them.
	var img uuid.UUID
	require.NoError(t, e.DB.Pool.QueryRow(ctx, "SELECT image_id FROM badges WHERE id = $1", uuid.MustParse(e.Badge())).Scan(&img))
	for _, v := range []string{"original", "medium", "small"} {
		_, err := e.Store.PutIfAbsent(ctx, issuer.MediaKey(img.String(), v, "png"), squarePNG(t), "image/png")
		require.NoError(t, err)
	}
	_, err := e.DB.UpdateOrganizationProfile(ctx, db.UpdateOrganizationProfileParams{ID: e.Org.ID, Name: ptr("클라우드 아카데미 Cloud Academy"),
		WebsiteUrl: ptr("https://academy.example/"), LogoMediaID: &img,
		Description: ptr("We teach cloud engineering to working developers.\n현업 개발자를 위한 클라우드 엔지니어링 교육 기관입니다.")})
	require.NoError(t, err)
	e.MustOK(t, http.MethodPatch, "/public/v3/programs/"+e.Program(), e.Keys["manager"], `{"name":"클라우드 네이티브 애플리케이션 개발자 전문과정","isVisibleAtOrganizationPage":true}`)
	e.MustOK(t, http.MethodPatch, "/public/v3/badges/"+e.Badge(), e.Keys["manager"], `{"name":"클라우드 네이티브 애플리케이션 개발자 전문과정 수료"}`)
	e.IssueSigned(t, "김하늘", "haneul@example.com")

	org, badge := "/issuers/"+e.Org.ID.String(), "/achievements/"+e.Badge()
	cases := []struct {
		name, path, lang, wantH1 string
		status                   int
		want                     []string
	}{
		{"org en", org + "?lang=en", "en", "클라우드 아카데미 Cloud Academy", 200, []string{"Programs and their badges", "Holders now: 1", "클라우드 네이티브 애플리케이션 개발자 전문과정 수료"}},
		{"org ko", org, "ko", "클라우드 아카데미 Cloud Academy", 200, []string{"프로그램과 배지", "현재 보유자: 1명", "웹사이트"}},
		{"badge en", badge, "en", "클라우드 네이티브 애플리케이션 개발자 전문과정 수료", 200, []string{"How to earn it", "Finish all modules", "Skills", "valid for one month", "All badges of"}},
		{"badge ko", badge + "?lang=ko", "ko", "클라우드 네이티브 애플리케이션 개발자 전문과정 수료", 200, []string{"취득 기준", "역량", "1개월", "발급 기관"}},
		{"unknown badge en", "/achievements/" + uuid.NewString(), "en", "We could not find this page", 404, nil},
		{"unknown badge ko", "/achievements/" + uuid.NewString() + "?lang=ko", "ko", "이 페이지를 찾을 수 없습니다", 404, nil},
	}
	for _, c := range cases {
		for _, width := range []int64{desktopWidth, phoneWidth} {
			t.Run(c.name+" "+strconv.Itoa(int(width)), func(t *testing.T) {
				height := map[bool]int64{true: phoneHeight, false: desktopHeight}[width == phoneWidth]
				acceptLang := map[string]string{"en": "en-US,en;q=0.9", "ko": "ko-KR,ko;q=0.9"}[c.lang]
				if strings.Contains(c.path, "?lang=") { // the query wins over the browser's language
					acceptLang = map[string]string{"en": "ko-KR", "ko": "en-US"}[c.lang]
				}
				tab := newTab(t, browser, width, height, acceptLang)
				setMediaLight(t, tab)
				resp, err := chromedp.Run(tab, chromedp.NavigateResponse(e.Srv.URL+c.path))
				require.NoError(t, err)
				require.Equal(t, c.status, int(resp.Status))
				var serious []axeViolation
				for _, v := range runAxe(t, tab, axe) {
					if v.Impact == "serious" || v.Impact == "critical" {
						serious = append(serious, v)
					}
				}
				require.Empty(t, serious, "axe-core: serious or critical accessibility violations")
				f, err := chromedp.Run(tab, chromedp.Evaluate[facesFacts](facesFactsJS))
				require.NoError(t, err)
				require.Equal(t, c.lang, f.Lang)
				require.Equal(t, c.wantH1, f.H1)
				for _, w := range c.want {
					require.Contains(t, f.Text, w)
				}
				require.NotContains(t, f.Text, "김하늘", "no recipient on these pages")
				require.LessOrEqual(t, f.ScrollWidth, f.InnerWidth, "horizontal scroll at %d px", width)
				require.Empty(t, f.BrokenImages)
				require.Zero(t, f.Scripts)
				require.Equal(t, 1, f.HeadingLevels[0])
				for i := 1; i < len(f.HeadingLevels); i++ {
					require.LessOrEqual(t, f.HeadingLevels[i], f.HeadingLevels[i-1]+1, "heading levels skip: %v", f.HeadingLevels)
				}
				if c.status == 200 {
					require.NotEmpty(t, f.OGTitle, "Open Graph title")
				}
			})
		}
	}
}

// squarePNG is a 64×64 badge-like image.
func squarePNG(tb testing.TB) []byte {
	tb.Helper()
	m := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			m.Set(x, y, color.RGBA{R: uint8(x * 4), G: 90, B: uint8(y * 4), A: 255})
		}
	}
	var b bytes.Buffer
	require.NoError(tb, png.Encode(&b, m))
	return b.Bytes()
}
