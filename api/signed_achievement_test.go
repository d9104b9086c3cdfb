package api_test

import (
	"bytes"
	"context"
	"html"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
)

// TestPage_AchievementAsSigned: a PATCH of the badge after issue (name, description, criteria, skills, image)
// changes nothing the page, its Open Graph tags, the embed snippet, the PDF certificate or the social preview
// vouch for: they show the achievement as the credential signed it, image included. An award issued after the
// PATCH shows the new values.
func TestPage_AchievementAsSigned(t *testing.T) {
	f := newPageFixture(t)
	ctx := context.Background()
	f.clock.Set(time.Now().UTC().Truncate(time.Second))
	red := image.NewNRGBA(image.Rect(0, 0, 64, 64)) // the new image: solid red, which the signed one is not
	for i := 0; i < len(red.Pix); i += 4 {
		copy(red.Pix[i:], []byte{0xff, 0, 0, 0xff})
	}
	var redPNG bytes.Buffer
	require.NoError(t, png.Encode(&redPNG, red))
	_, err := f.store.PutIfAbsent(ctx, issuer.MediaKey(f.vars["{image2}"], "medium", "png"), redPNG.Bytes(), "image/png")
	require.NoError(t, err)

	id := f.issueSignedTo(t, "김하늘", "sky@example.com", f.clock.Now().Add(-time.Hour))
	before := f.page(t, "/verify/"+id.String())
	pdfBefore := f.pdfBytes(t, id, "en")
	previewBefore := f.previewBytes(t, id, "en")

	f.mustOK(t, http.MethodPatch, "/public/v3/badges/"+f.vars["{badge1m}"], f.keys["manager"], f.expand(
		`{"name":"CHANGED name","description":"CHANGED description","criteria":[{"category":"OTHER","value":"CHANGED criterion"}],`+
			`"skills":[{"sourceType":"CUSTOM","skillName":"CHANGEDSKILL"}],"imageId":"{image2}"}`))

	after := f.page(t, "/verify/"+id.String())
	require.NotContains(t, after, "CHANGED")
	require.NotContains(t, after, f.vars["{image2}"], "the new image is nowhere on the page")
	for _, want := range []string{
		`<h2 id="badge-name">Team lead</h2>`, `<p class="desc">Awarded on completion</p>`,
		`<img src="/media/` + f.vars["{image}"] + `/medium"`,
		`<meta property="og:description" content="This badge is valid. Awarded on completion">`,
		`<meta name="twitter:description" content="This badge is valid. Awarded on completion">`,
		`<h3 class="src signed">Signed in the credential</h3>
  <ul class="crit">
    <li>Finish all modules</li>`,
		`<h3 class="src signed">Signed in the credential</h3>
  <ul class="tags"><li>Go</li></ul>`,
		`alt="Badge card: “Team lead”, awarded to 김하늘 by Acme Academy"`,                    // the embed snippet, live
		html.EscapeString(`alt="Badge card: “Team lead”, awarded to 김하늘 by Acme Academy"`), // and to copy
	} {
		require.Contains(t, after, want)
	}
	require.Equal(t, before, after, "the page did not change at all")

	text := pdfText(t, f.pdfBytes(t, id, "en"))
	require.Contains(t, text, "Team lead")
	require.Contains(t, text, "Criteria: Finish all modules")
	require.NotContains(t, text, "CHANGED")
	require.Equal(t, pdfBefore, f.pdfBytes(t, id, "en"), "the same certificate: nothing it draws changed")
	require.Equal(t, previewBefore, f.previewBytes(t, id, "en"), "the same preview: nothing it draws changed")
	requireNotRed(t, f.previewBytes(t, id, "en"), image.Pt(70+180, 14+(630-14-360)/2+180))

	// An award issued after the PATCH signs, and so shows, the new badge.
	later := f.issueSignedTo(t, "박지민", "jimin@example.com", f.clock.Now().Add(-time.Minute))
	p := f.page(t, "/verify/"+later.String())
	for _, want := range []string{"CHANGED name", "CHANGED description", "<li>CHANGED criterion</li>", "<li>CHANGEDSKILL</li>",
		`<img src="/media/` + f.vars["{image2}"] + `/medium"`} {
		require.Contains(t, p, want)
	}
	require.Contains(t, pdfText(t, f.pdfBytes(t, later, "en")), "Criteria: CHANGED criterion")
	prev, err := png.Decode(bytes.NewReader(f.previewBytes(t, later, "en")))
	require.NoError(t, err)
	require.Equal(t, color.RGBA{0xff, 0, 0, 0xff}, color.RGBAModel.Convert(prev.At(70+180, 14+(630-14-360)/2+180)), "the new image")
}

// TestPage_AchievementImageNotOurs: a verified credential whose achievement image is no media URL of this service
// shows no image at all (never the badge's current one): the page a framed blank, the certificate and the
// preview their placeholders.
func TestPage_AchievementImageNotOurs(t *testing.T) {
	f := newPageFixture(t)
	f.clock.Set(time.Now().UTC().Truncate(time.Second))
	body := strings.TrimSuffix(issuanceBody(f.vars["{program}"], rcpt("김하늘", "sky@example.com")), "}") +
		`,"issuedAt":"` + f.clock.Now().Add(-time.Hour).Format(time.RFC3339) + `"}`
	iss := jstr(t, f.mustIssue(t, "v3", "{badge1m}", "manager", uuid.NewString(), body), "id")
	var id uuid.UUID
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT id FROM assertions WHERE issuance_id = $1", uuid.MustParse(iss)).Scan(&id))
	f.signAssertion(t, id, true, false, func(in *credential.BuildInput) {
		in.Achievement.ImageURL = "https://elsewhere.example/media/" + f.vars["{image}"] + "/original"
	})
	p := f.page(t, "/verify/"+id.String())
	require.Contains(t, p, `<div class="noimg" role="img" aria-label="Badge image: Team lead"></div>`)
	require.NotContains(t, p, `<img src="/media/`)
	text := pdfText(t, f.pdfBytes(t, id, "en"))
	require.Equal(t, 2, strings.Count(text, "Team lead"), "the name under the recipient and in the placeholder frame")
	f.previewBytes(t, id, "en")
}

// pdfBytes is the recipient's certificate of id in lang.
func (f *pageFixture) pdfBytes(tb testing.TB, id uuid.UUID, lang string) []byte {
	tb.Helper()
	var token string
	require.NoError(tb, f.d.Pool.QueryRow(context.Background(), "SELECT certificate_token::text FROM assertions WHERE id = $1", id.String()).Scan(&token))
	status, ctype, b := f.getWithin(tb, "/credentials/"+id.String()+"/certificate.pdf?token="+token+"&lang="+lang)
	require.Equal(tb, http.StatusOK, status, "%s", b)
	require.Equal(tb, "application/pdf", ctype)
	return b
}

// previewBytes is the social preview of id in lang.
func (f *pageFixture) previewBytes(tb testing.TB, id uuid.UUID, lang string) []byte {
	tb.Helper()
	status, ctype, b := f.getWithin(tb, "/credentials/"+id.String()+"/preview.png?lang="+lang)
	require.Equal(tb, http.StatusOK, status, "%s", b)
	require.Equal(tb, "image/png", ctype)
	return b
}

// pdfText is the text of a PDF, joined into one line (pdftotext, poppler-utils).
func pdfText(tb testing.TB, pdf []byte) string {
	tb.Helper()
	f := filepath.Join(tb.TempDir(), "c.pdf")
	require.NoError(tb, os.WriteFile(f, pdf, 0o600))
	out, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", f, "-").Output()
	require.NoError(tb, err, "pdftotext (Debian package poppler-utils, `make os-deps`)")
	return string(bytes.Join(bytes.Fields(out), []byte(" ")))
}

// requireNotRed: the PNG's pixel at p is not the new image's red.
func requireNotRed(tb testing.TB, pngBytes []byte, p image.Point) {
	tb.Helper()
	img, err := png.Decode(bytes.NewReader(pngBytes))
	require.NoError(tb, err)
	require.NotEqual(tb, color.RGBA{0xff, 0, 0, 0xff}, color.RGBAModel.Convert(img.At(p.X, p.Y)))
}
