package api_test

import (
	"bytes"
	"context"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/internal/metrics"
)

// TestSharePreview: the social preview is a 1200×630 PNG, rendered once per state and language (a second request
// and a revalidation render nothing), rendered again when the badge expires and when it is revoked, and each
// state shows on the image; the page's Open Graph and Twitter tags point at it.
func TestSharePreview(t *testing.T) {
	f := newPageFixture(t)
	now := time.Now().UTC().Truncate(time.Second)
	f.clock.Set(now)
	id := f.issueSignedTo(t, "김하늘", "sky@example.com", now.Add(-time.Hour))

	deps := issuanceDeps(t, f.d, f.starter, f.clock.Now)
	deps.Blob, deps.Issuer, deps.Metrics = f.store, f.iss, metrics.New()
	srv := startServer(t, api.NewHandler(deps))
	renders := func() float64 {
		mfs, err := deps.Metrics.Registry.Gather()
		require.NoError(t, err)
		for _, mf := range mfs {
			if mf.GetName() == "badged_share_preview_renders_total" {
				return mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		t.Fatal("no preview render counter")
		return 0
	}
	get := func(path string, header ...string) (*http.Response, []byte) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res, b
	}
	preview := "/credentials/" + id.String() + "/preview.png?lang=en"
	// bandAt is the colour of the card's bottom-left corner: the status band's, or the background's when valid.
	bandAt := func(b []byte) color.RGBA {
		img, err := png.Decode(bytes.NewReader(b))
		require.NoError(t, err)
		require.Equal(t, image.Rect(0, 0, 1200, 630), img.Bounds(), "1200×630")
		return color.RGBAModel.Convert(img.At(4, 626)).(color.RGBA)
	}

	res, first := get(preview)
	require.Equal(t, 200, res.StatusCode, "%s", first)
	require.Equal(t, "image/png", res.Header.Get("Content-Type"))
	require.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
	etag := res.Header.Get("ETag")
	require.NotEmpty(t, etag)
	require.Equal(t, color.RGBA{0xf5, 0xf7, 0xfa, 0xff}, bandAt(first), "a valid badge has no band")
	require.Equal(t, 1.0, renders())

	res, again := get(preview)
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, first, again, "the kept image")
	require.Equal(t, etag, res.Header.Get("ETag"))
	res, _ = get(preview, "If-None-Match", etag)
	require.Equal(t, http.StatusNotModified, res.StatusCode)
	require.Equal(t, 1.0, renders(), "neither the second request nor the revalidation rendered")

	res, ko := get("/credentials/" + id.String() + "/preview.png?lang=ko")
	require.Equal(t, 200, res.StatusCode)
	require.NotEqual(t, first, ko, "Korean labels")
	require.Equal(t, 2.0, renders(), "one rendering per language")

	// The page's tags name the image in the page's language, with its size.
	p := f.page(t, "/verify/"+id.String())
	for _, tag := range []string{
		`<meta property="og:image" content="` + baseURL + preview + `">`,
		`<meta property="og:image:width" content="1200">`, `<meta property="og:image:height" content="630">`,
		`<meta property="og:title" content="`, `<meta property="og:description" content="This badge is valid. `,
		`<meta name="twitter:card" content="summary_large_image">`, `<meta name="twitter:image" content="` + baseURL + preview + `">`,
	} {
		require.Contains(t, p, tag)
	}

	// Two months on, the one-month badge has expired: a new state, a new image with the expired band.
	f.clock.Set(now.AddDate(0, 2, 0))
	res, expired := get(preview, "If-None-Match", etag)
	require.Equal(t, 200, res.StatusCode, "the old ETag no longer matches")
	require.NotEqual(t, etag, res.Header.Get("ETag"))
	require.Equal(t, color.RGBA{0x6b, 0x42, 0x00, 0xff}, bandAt(expired), "the EXPIRED band")
	require.Equal(t, 3.0, renders())
	_, _ = get(preview)
	require.Equal(t, 3.0, renders(), "kept")

	f.clock.Set(now)
	_, err := f.d.Pool.Exec(context.Background(), "UPDATE assertions SET state = 'REVOKED', revoked_at = now() WHERE id = $1", id)
	require.NoError(t, err)
	res, revoked := get(preview)
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, color.RGBA{0x86, 0x16, 0x1b, 0xff}, bandAt(revoked), "the REVOKED band")
	require.Equal(t, 4.0, renders())

	for _, path := range []string{"/credentials/" + uuid.NewString() + "/preview.png", "/credentials/nope/preview.png"} {
		res, _ := get(path)
		require.Equal(t, 404, res.StatusCode, path)
	}
}

// TestShareLinks: the page's share links go straight to the networks, with the page URL and a sentence that leads
// with the state of a badge that is not valid; the copy field and the embed snippet carry the page's URL.
func TestShareLinks(t *testing.T) {
	f := newPageFixture(t)
	now := time.Now().UTC().Truncate(time.Second)
	f.clock.Set(now)
	id := f.issueSignedTo(t, "Alex Kim", "alex@example.com", now.Add(-time.Hour))
	page := baseURL + "/verify/" + id.String()
	href := func(p, anchor string) string {
		i := strings.Index(p, `id="`+anchor+`"`)
		require.GreaterOrEqual(t, i, 0, "no %s", anchor)
		start := strings.LastIndex(p[:i], `href="`) + len(`href="`)
		raw := html.UnescapeString(p[start : start+strings.Index(p[start:], `"`)]) // as a browser reads the attribute
		// Share buttons lead through the counting redirect; where it sends the browser is what the button shares.
		require.True(t, strings.HasPrefix(raw, baseURL+"/share/"+id.String()+"/"), "%s goes through the counter: %s", anchor, raw)
		c := *f.srv.Client()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := c.Get(f.srv.URL + strings.TrimPrefix(raw, baseURL))
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusFound, res.StatusCode, "%s", raw)
		return res.Header.Get("Location")
	}
	query := func(u string) url.Values {
		parsed, err := url.Parse(u)
		require.NoError(t, err)
		return parsed.Query()
	}

	p := f.page(t, "/verify/"+id.String())
	require.Equal(t, url.Values{"url": {page}}, query(href(p, "share-linkedin-post")))
	require.True(t, strings.HasPrefix(href(p, "share-linkedin-post"), "https://www.linkedin.com/sharing/share-offsite/?"))
	require.True(t, strings.HasPrefix(href(p, "share-facebook"), "https://www.facebook.com/sharer/sharer.php?"))
	require.Equal(t, url.Values{"u": {page}}, query(href(p, "share-facebook")))
	x := query(href(p, "share-x"))
	require.Equal(t, page, x.Get("url"))
	require.True(t, strings.HasPrefix(x.Get("text"), "Alex Kim earned the “Team lead” badge from "), x.Get("text"))
	mail := href(p, "share-email")
	require.True(t, strings.HasPrefix(mail, "mailto:?subject="))
	require.NotContains(t, mail, "+", "spaces are %20 in mailto")
	require.Contains(t, mail, url.QueryEscape(page))
	require.Contains(t, p, `id="linkedin"`, "add to profile beside the post")
	require.Contains(t, p, `<input id="share-copy" type="text" readonly value="`+page+`"`)
	require.Contains(t, p, `<textarea id="embed-code" readonly`)
	require.Contains(t, p, `&lt;a href=&#34;`+page+`&#34;`, "the snippet is shown as text to copy")
	require.Contains(t, p, `<div class="embed-preview" id="embed-preview"><a href="`+page+`"`, "and live")
	require.NotContains(t, p, "<script")

	_, err := f.d.Pool.Exec(context.Background(), "UPDATE assertions SET state = 'REVOKED', revoked_at = now() WHERE id = $1", id)
	require.NoError(t, err)
	p = f.page(t, "/verify/"+id.String()+"?lang=ko")
	require.NotContains(t, p, `id="linkedin"`, "no add-to-profile for a revoked badge")
	x = query(href(p, "share-x"))
	require.True(t, strings.HasPrefix(x.Get("text"), "[취소됨] "), "the share says the badge was revoked: %q", x.Get("text"))
	require.Contains(t, x.Get("text"), "취소되었습니다")
	subject := query(strings.Replace(href(p, "share-email"), "mailto:", "http://x/", 1)).Get("subject")
	require.True(t, strings.HasPrefix(subject, "취소됨: "), subject)
	p = f.page(t, "/verify/"+id.String()+"?lang=en")
	require.True(t, strings.HasPrefix(query(href(p, "share-x")).Get("text"), "REVOKED: the “Team lead” badge of Alex Kim"))
}

// issueSignedTo issues one assertion of {badge1m} to name and email, issued at issuedAt, and signs it as the sign
// step does, the name included.
func (f *pageFixture) issueSignedTo(tb testing.TB, name, email string, issuedAt time.Time) uuid.UUID {
	tb.Helper()
	body := strings.TrimSuffix(issuanceBody(f.vars["{program}"], rcpt(name, email)), "}") +
		`,"issuedAt":"` + issuedAt.Format(time.RFC3339) + `"}`
	iss := jstr(tb, f.mustIssue(tb, "v3", "{badge1m}", "manager", uuid.NewString(), body), "id")
	var id uuid.UUID
	require.NoError(tb, f.d.Pool.QueryRow(context.Background(), "SELECT id FROM assertions WHERE issuance_id = $1", uuid.MustParse(iss)).Scan(&id))
	f.mustSignAssertion(tb, id, true)
	return id
}
