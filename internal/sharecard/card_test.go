package sharecard

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

func badgePNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 80, 40)) // not square: drawn with its aspect kept
	for y := 0; y < 40; y++ {
		for x := 0; x < 80; x++ {
			img.Set(x, y, color.RGBA{0xf0, 0xb4, 0x29, 0xff})
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// TestRender: the card is a 1200×630 PNG; the badge image is drawn on the left; a revoked card carries the band.
func TestRender(t *testing.T) {
	in := Input{BadgeImage: badgePNG(t), BadgeName: "클라우드 네이티브 애플리케이션 개발자 전문과정 수료", Recipient: "김하늘",
		AwardedLabel: "수여 대상", Issuer: "E2E 아카데미", Kind: KindValid, Footer: "badged.example"}
	out, err := Render(in)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(out))
	require.NoError(t, err)
	require.Equal(t, image.Rect(0, 0, Width, Height), img.Bounds())
	r, g, b, _ := img.At(70+180, 14+(Height-14-360)/2+180).RGBA()
	require.Equal(t, [3]uint32{0xf0, 0xb4, 0x29}, [3]uint32{r >> 8, g >> 8, b >> 8}, "the badge image in the middle of its box")
	require.Equal(t, rgb(0xf5f7fa), color.RGBAModel.Convert(img.At(5, Height-5)), "no band on a valid card")

	in.Kind, in.StatusWord, in.StatusText = KindRevoked, "취소됨", "이 배지는 2026년 2월 10일에 취소되었습니다"
	out, err = Render(in)
	require.NoError(t, err)
	img, err = png.Decode(bytes.NewReader(out))
	require.NoError(t, err)
	require.Equal(t, bandColors[KindRevoked][0], color.RGBAModel.Convert(img.At(5, Height-5)), "the revoked band")
	text := 0 // white text pixels in the band: the status word and sentence were drawn (Hangul glyphs exist)
	for y := Height - 150; y < Height; y++ {
		for x := 0; x < Width; x++ {
			if c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA); c.R > 0xc0 && c.G > 0xc0 {
				text++
			}
		}
	}
	require.Greater(t, text, 2000)

	in.BadgeImage = []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)
	_, err = Render(in)
	require.NoError(t, err, "an SVG badge draws the placeholder")
}

// TestWrap: lines break between words, a long word between characters, and the last line is ellipsized.
func TestWrap(t *testing.T) {
	reg, _, err := fonts()
	require.NoError(t, err)
	c := &canvas{faces: map[faceKey]font.Face{}}
	f := c.face(reg, 20)
	w := fixed.I(200)
	lines := wrap(f, "one two three four five six seven eight nine ten eleven twelve", w, 2)
	require.Len(t, lines, 2)
	require.True(t, strings.HasSuffix(lines[1], "…"))
	require.True(t, strings.HasPrefix(lines[0], "one two"))
	lines = wrap(f, strings.Repeat("가", 100), w, 3)
	require.Len(t, lines, 3)
	for _, l := range lines {
		require.LessOrEqual(t, font.MeasureString(f, l), w)
	}
	require.Equal(t, []string{"짧은 이름"}, wrap(f, "  짧은   이름 ", w, 2))
}
