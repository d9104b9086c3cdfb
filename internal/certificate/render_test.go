package certificate

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/stretchr/testify/require"
)

const testURL = "https://badged.example/public/v3/credentials/6b3e1f0e-6a55-4f1d-9f39-6c2a8e0f4a11"

// koreanInput is a typical certificate; the recipient name uses rare syllables (똠, 햏) that a KS X 1001-only
// font would miss.
func koreanInput(tb testing.TB) Input {
	return Input{
		BadgeName:     "Go 프로그래밍 기초 과정 수료",
		BadgeImage:    testBadge(tb),
		RecipientName: "홍길동 똠햏",
		IssuerName:    "한국디지털대학교 평생교육원",
		IssuedOn:      "2025년 3월 14일",
		ExpiresOn:     "2027년 3월 14일",
		SerialNumber:  "BDG-2025-000123",
		VerifyURL:     testURL,
		Lang:          LangKO,
	}
}

var (
	testBadgeOnce sync.Once
	testBadgePNG  []byte
)

// testBadge returns a 400×400 badge PNG, drawn once per test binary.
func testBadge(tb testing.TB) []byte {
	testBadgeOnce.Do(func() { testBadgePNG = mustBadgePNG(tb, 400) })
	return testBadgePNG
}

// rasterize renders page 1 of pdf with pdftoppm (poppler-utils) at dpi and returns the image.
func rasterize(tb testing.TB, pdf []byte, dpi string) image.Image {
	tb.Helper()
	_, err := exec.LookPath("pdftoppm")
	require.NoError(tb, err, "pdftoppm (Debian package poppler-utils) must be installed")
	dir := tb.TempDir()
	in := filepath.Join(dir, "c.pdf")
	require.NoError(tb, os.WriteFile(in, pdf, 0o600))
	out, err := exec.Command("pdftoppm", "-png", "-r", dpi, "-singlefile", in, filepath.Join(dir, "c")).CombinedOutput()
	require.NoError(tb, err, "pdftoppm: %s", out)
	f, err := os.ReadFile(filepath.Join(dir, "c.png"))
	require.NoError(tb, err)
	m, err := png.Decode(bytes.NewReader(f))
	require.NoError(tb, err)
	return m
}

// pdfText extracts the text layer with pdftotext (poppler-utils).
func pdfText(tb testing.TB, pdf []byte) string {
	tb.Helper()
	_, err := exec.LookPath("pdftotext")
	require.NoError(tb, err, "pdftotext (Debian package poppler-utils) must be installed")
	cmd := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(tb, err, "pdftotext: %s", stderr.String())
	return string(out)
}

// pdfFonts lists the fonts of pdf with pdffonts (poppler-utils).
func pdfFonts(tb testing.TB, pdf []byte) string {
	tb.Helper()
	f := filepath.Join(tb.TempDir(), "c.pdf")
	require.NoError(tb, os.WriteFile(f, pdf, 0o600))
	out, err := exec.Command("pdffonts", f).CombinedOutput()
	require.NoError(tb, err, "pdffonts (Debian package poppler-utils): %s", out)
	return string(out)
}

// decodeQR finds and decodes the QR code in m.
func decodeQR(tb testing.TB, m image.Image) string {
	tb.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(m)
	require.NoError(tb, err)
	res, err := qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
	require.NoError(tb, err, "no QR code found in the rendered page")
	return res.GetText()
}

func TestRender_Korean(t *testing.T) {
	in := koreanInput(t)
	pdf, err := Render(in)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), "PDF header")
	fonts := pdfFonts(t, pdf)
	require.Regexp(t, `(?m)^utf8nanumgothic\s+CID TrueType\s+Identity-H\s+yes`, fonts, "body font embedded")
	require.Regexp(t, `(?m)^utf8nanumsquare\s+CID TrueType\s+Identity-H\s+yes`, fonts, "heading font embedded")
	require.Less(t, len(pdf), 300<<10, "fonts are subset, not embedded whole")

	text := pdfText(t, pdf)
	for _, want := range []string{in.RecipientName, in.BadgeName, in.IssuerName, in.IssuedOn, in.ExpiresOn,
		in.SerialNumber, "디지털 배지 인증서", "발급 기관"} {
		require.Contains(t, text, want)
	}

	page := rasterize(t, pdf, "150")
	b := page.Bounds()
	require.InDelta(t, 1240, b.Dx(), 2, "A4 width at 150 dpi")
	require.InDelta(t, 1754, b.Dy(), 2, "A4 height at 150 dpi")
	require.Equal(t, testURL, decodeQR(t, page))

	// The badge image is drawn: the centre of the badge box is the white star, its upper part the blue disc.
	cx := b.Dx() / 2
	requireColor(t, page.At(cx, mmToPx(56+62/2.0, 150)), color.RGBA{255, 255, 255, 255})
	requireColor(t, page.At(cx, mmToPx(56+6, 150)), color.RGBA{21, 101, 192, 255})
}

func TestRender_English(t *testing.T) {
	in := koreanInput(t)
	in.Lang = LangEN
	in.RecipientName = "Jane Doe"
	in.IssuedOn = "March 14, 2025"
	in.ExpiresOn = ""
	in.BadgeImage = mustBadgeJPEG(t, 300)
	pdf, err := Render(in)
	require.NoError(t, err)
	text := pdfText(t, pdf)
	for _, want := range []string{"Certificate of Achievement", "Jane Doe", "has earned the badge", "Issued by",
		"March 14, 2025", "Does not expire", "Serial number"} {
		require.Contains(t, text, want)
	}
	require.Equal(t, testURL, decodeQR(t, rasterize(t, pdf, "150")))
}

func TestRender_BadgeImageVariants(t *testing.T) {
	var sixteen bytes.Buffer // fpdf itself cannot read 16-bit PNGs
	m16 := image.NewNRGBA64(image.Rect(0, 0, 64, 64))
	for i := range m16.Pix {
		m16.Pix[i] = 0x80
	}
	require.NoError(t, png.Encode(&sixteen, m16))
	var big bytes.Buffer // filled through Pix: Set per pixel is slow under -race
	mBig := image.NewNRGBA(image.Rect(0, 0, 1600, 1200))
	for i := 0; i < len(mBig.Pix); i += 4 {
		copy(mBig.Pix[i:], []byte{21, 101, 192, 255})
	}
	require.NoError(t, png.Encode(&big, mBig))

	tests := []struct {
		name        string
		img         []byte
		placeholder bool
	}{
		{name: "JPEG", img: mustBadgeJPEG(t, 200)},
		{name: "16-bit PNG", img: sixteen.Bytes()},
		{name: "large PNG is scaled down", img: big.Bytes()},
		{name: "SVG becomes a placeholder", img: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), placeholder: true},
		{name: "no image becomes a placeholder", img: nil, placeholder: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := koreanInput(t)
			in.BadgeImage = tt.img
			in.BadgeName = "Go 기초" // short enough to stay on one line in the placeholder
			pdf, err := Render(in)
			require.NoError(t, err)
			require.Less(t, len(pdf), 400<<10)
			text := pdfText(t, pdf)
			n := strings.Count(text, in.BadgeName)
			if tt.placeholder {
				require.Equal(t, 2, n, "badge name under the recipient and inside the placeholder frame")
			} else {
				require.Equal(t, 1, n)
			}
		})
	}
}

func TestRender_LongTexts(t *testing.T) {
	in := koreanInput(t)
	in.RecipientName = strings.Repeat("김", 40)
	in.BadgeName = strings.Repeat("아주 긴 배지 이름 ", 30)
	in.IssuerName = strings.Repeat("발급기관", 30)
	in.VerifyURL = testURL + "?" + strings.Repeat("x", 300)
	pdf, err := Render(in)
	require.NoError(t, err)
	require.Contains(t, pdfText(t, pdf), "김김김")
	require.Equal(t, in.VerifyURL, decodeQR(t, rasterize(t, pdf, "200")))
}

func TestRender_InvalidInput(t *testing.T) {
	pixelBomb := mustBadgePNG(t, 8)
	// Patch the IHDR width and height to 100000×100000 and recompute its CRC.
	copy(pixelBomb[16:24], []byte{0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0})
	pixelBomb = fixIHDRCRC(pixelBomb)

	tests := []struct {
		name    string
		edit    func(*Input)
		wantErr error
	}{
		{"no recipient", func(in *Input) { in.RecipientName = " " }, ErrInvalidInput},
		{"no badge name", func(in *Input) { in.BadgeName = "" }, ErrInvalidInput},
		{"no issuer", func(in *Input) { in.IssuerName = "" }, ErrInvalidInput},
		{"no issue date", func(in *Input) { in.IssuedOn = "" }, ErrInvalidInput},
		{"no verify URL", func(in *Input) { in.VerifyURL = "" }, ErrInvalidInput},
		{"unknown language", func(in *Input) { in.Lang = "fr" }, ErrInvalidInput},
		{"corrupt image", func(in *Input) { in.BadgeImage = []byte("\x89PNG\r\n\x1a\nbroken") }, ErrBadImage},
		{"truncated JPEG", func(in *Input) { j := mustBadgeJPEG(t, 64); in.BadgeImage = j[:len(j)/2] }, ErrBadImage},
		{"pixel bomb", func(in *Input) { in.BadgeImage = pixelBomb }, ErrBadImage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := koreanInput(t)
			tt.edit(&in)
			_, err := Render(in)
			require.ErrorIs(t, err, tt.wantErr)
		})
	}
}

func TestRender_EmptyLangIsKorean(t *testing.T) {
	in := koreanInput(t)
	in.Lang = ""
	pdf, err := Render(in)
	require.NoError(t, err)
	require.Contains(t, pdfText(t, pdf), "디지털 배지 인증서")
}

// BenchmarkRender renders the Korean certificate with a 400×400 PNG badge.
func BenchmarkRender(b *testing.B) {
	in := koreanInput(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(in); err != nil {
			b.Fatal(err)
		}
	}
}

func mmToPx(mm float64, dpi float64) int { return int(mm / 25.4 * dpi) }

// requireColor checks that c is within a small distance of want (anti-aliasing and JPEG-free PNG round trip).
func requireColor(tb testing.TB, c color.Color, want color.RGBA) {
	tb.Helper()
	r, g, b, _ := c.RGBA()
	d := func(x uint32, y uint8) int { return int(x>>8) - int(y) }
	for _, v := range []int{d(r, want.R), d(g, want.G), d(b, want.B)} {
		require.LessOrEqual(tb, v*v, 12*12, "color %v, want %v", c, want)
	}
}
