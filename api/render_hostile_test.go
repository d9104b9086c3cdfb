package api_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/issuer"
)

// TestRenderers_HostileNames: an emoji (past the Basic Multilingual Plane, which fpdf's font code cannot hold) in
// the recipient's, the badge's and the organization's name, all signed into the credential, gives a PDF 200 and a
// preview 200, five credentials over in both languages (20 fresh renders, more than the 4 render slots: a render
// that lost its slot would leave the last ones waiting), drawn with the replacement square beside the readable
// names; another organization's PDF and preview still render after them, and the page shows the emoji as they are.
func TestRenderers_HostileNames(t *testing.T) {
	f := newPageFixture(t)
	ctx := context.Background()
	f.clock.Set(time.Now().UTC().Truncate(time.Second))
	f.mustOK(t, http.MethodPatch, "/public/v3/badges/"+f.vars["{badge1m}"], f.keys["manager"], `{"name":"Team lead 🏆"}`)
	_, err := f.d.Pool.Exec(ctx, "UPDATE organizations SET name = $2 WHERE id = $1", f.org.ID, "Acme 🎓 Academy")
	require.NoError(t, err)

	var ids []uuid.UUID
	for i := range 5 {
		ids = append(ids, f.issueSignedTo(t, "김하늘 👩‍🎓 "+string(rune('A'+i)), uuid.NewString()+"@example.com", f.clock.Now().Add(-time.Hour)))
	}
	for i, id := range ids {
		for _, lang := range []string{"en", "ko"} {
			text := f.renderedPDF(t, id, lang)
			for _, want := range []string{"김하늘 □ " + string(rune('A'+i)), "Team lead □", "Acme □ Academy"} {
				require.Contains(t, text, want, "%s %s", id, lang)
			}
			f.renderedPreview(t, id, lang)
		}
	}
	page := f.page(t, "/verify/"+ids[0].String())
	for _, want := range []string{"김하늘 👩‍🎓 A", "Team lead 🏆", "Acme 🎓 Academy"} {
		require.Contains(t, page, want, "the page shows what the browser's fonts draw")
	}

	// Another organization's certificate and preview render as ever.
	_, err = f.store.PutIfAbsent(ctx, issuer.MediaKey(f.vars["{otherImage}"], "medium", "png"), mustPNG(t, 64, 64, false), "image/png")
	require.NoError(t, err)
	body := strings.TrimSuffix(issuanceBody(f.vars["{otherProgram}"], rcpt("Other Person", "other@example.com")), "}") +
		`,"issuedAt":"` + f.clock.Now().Add(-time.Hour).Format(time.RFC3339) + `"}`
	iss := jstr(t, f.mustIssue(t, "v3", "{otherBadge}", "otherManager", uuid.NewString(), body), "id")
	var other uuid.UUID
	require.NoError(t, f.d.Pool.QueryRow(ctx, "SELECT id FROM assertions WHERE issuance_id = $1", uuid.MustParse(iss)).Scan(&other))
	f.mustSignAssertion(t, other, true)
	require.Contains(t, f.renderedPDF(t, other, "en"), "Other Person")
	f.renderedPreview(t, other, "en")
}

// getWithin GETs path with a deadline, so that a render waiting forever for a slot fails the test instead of
// hanging it, and returns the answer's status, type and body.
func (f *pageFixture) getWithin(tb testing.TB, path string) (int, string, []byte) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.srv.URL+path, nil)
	require.NoError(tb, err)
	res, err := f.srv.Client().Do(req)
	require.NoError(tb, err, "GET %s", path)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	return res.StatusCode, res.Header.Get("Content-Type"), b
}

// renderedPDF is the text of the recipient's certificate of id in lang (pdftotext, one line), asserting a 200.
func (f *pageFixture) renderedPDF(tb testing.TB, id uuid.UUID, lang string) string {
	tb.Helper()
	var token uuid.UUID
	require.NoError(tb, f.d.Pool.QueryRow(context.Background(), "SELECT certificate_token FROM assertions WHERE id = $1", id).Scan(&token))
	status, ctype, b := f.getWithin(tb, "/credentials/"+id.String()+"/certificate.pdf?token="+token.String()+"&lang="+lang)
	require.Equal(tb, http.StatusOK, status, "%s", b)
	require.Equal(tb, "application/pdf", ctype)
	cmd := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", "-", "-")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	require.NoError(tb, err, "pdftotext (Debian package poppler-utils, `make os-deps`)")
	return strings.Join(strings.Fields(string(out)), " ")
}

// renderedPreview is the social preview of id in lang, asserting a 200 and a 1200×630 PNG.
func (f *pageFixture) renderedPreview(tb testing.TB, id uuid.UUID, lang string) image.Image {
	tb.Helper()
	status, ctype, b := f.getWithin(tb, "/credentials/"+id.String()+"/preview.png?lang="+lang)
	require.Equal(tb, http.StatusOK, status, "%s", b)
	require.Equal(tb, "image/png", ctype)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(tb, err)
	require.Equal(tb, image.Rect(0, 0, 1200, 630), img.Bounds())
	return img
}
