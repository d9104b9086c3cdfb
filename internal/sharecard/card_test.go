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

// TestRender_HostileText: emoji, characters past the BMP, unassigned and private-use code points, controls and
// scripts the fonts lack, in every text of the card, render (no panic, no error), and draw exactly what their
// drawable form draws: the readable part kept, one replacement square per emoji sequence, the invisible dropped.
func TestRender_HostileText(t *testing.T) {
	hostile := []string{"김하늘 🎓", "Jane 👩\u200d🎓 Doe", "Kim 👍🏽 🇰🇷 1\ufe0f\u20e3", "𝐁𝐨𝐥𝐝 \U00010000 Park",
		"Lee \u0378\uffff\ue000\U0010ffff", "Choi\x00\x07\u0085\u200b\u202e\u2066 Minji", "Dana אבי عمر", "Yoon \xff\xfe", "🎓"}
	replaced := map[string]string{"김하늘 🎓": "김하늘 □", "Jane 👩\u200d🎓 Doe": "Jane □ Doe", "Kim 👍🏽 🇰🇷 1\ufe0f\u20e3": "Kim □ □ 1",
		"𝐁𝐨𝐥𝐝 \U00010000 Park": "Bold □ Park", "Lee \u0378\uffff\ue000\U0010ffff": "Lee □□□□", "Choi\x00\x07\u0085\u200b\u202e\u2066 Minji": "Choi  Minji",
		"Dana אבי عمر": "Dana □□□ □□□", "Yoon \xff\xfe": "Yoon □□", "🎓": "□"}
	fields := map[string]func(*Input, string){
		"badge": func(in *Input, s string) { in.BadgeName = s }, "recipient": func(in *Input, s string) { in.Recipient = s },
		"issuer": func(in *Input, s string) { in.Issuer = s }, "label": func(in *Input, s string) { in.AwardedLabel = s },
		"footer": func(in *Input, s string) { in.Footer = s },
		"status": func(in *Input, s string) { in.Kind, in.StatusWord, in.StatusText = KindRevoked, s, s },
	}
	for field, set := range fields {
		t.Run(field, func(t *testing.T) {
			for _, s := range hostile {
				in := Input{BadgeImage: badgePNG(t), BadgeName: "Go 기초", Recipient: "김하늘", AwardedLabel: "수여 대상",
					Issuer: "E2E 아카데미", Kind: KindValid, Footer: "badged.example"}
				want := in
				set(&in, s)
				set(&want, replaced[s])
				got, err := Render(in)
				require.NoError(t, err, "%q", s)
				img, err := png.Decode(bytes.NewReader(got))
				require.NoError(t, err)
				require.Equal(t, image.Rect(0, 0, Width, Height), img.Bounds())
				drawn, err := Render(want)
				require.NoError(t, err)
				require.True(t, bytes.Equal(drawn, got), "%q draws as %q", s, replaced[s])
			}
		})
	}
}

// TestRender_BoldFallback: a bold line with a letter the bold font lacks (ë) is set in the regular font, which has
// it, rather than losing the letter: the card of "Zoë" carries less ink than that of "Zoe" in bold, diaeresis and all.
func TestRender_BoldFallback(t *testing.T) {
	_, _, err := fonts()
	require.NoError(t, err)
	require.False(t, boldCoverage.Has('ë'))
	require.True(t, regularCoverage.Has('ë'))
	ink := func(recipient string) int {
		in := Input{BadgeImage: badgePNG(t), BadgeName: "Go", Recipient: recipient, AwardedLabel: "Awarded to", Issuer: "Acme", Kind: KindValid}
		out, err := Render(in)
		require.NoError(t, err)
		img, err := png.Decode(bytes.NewReader(out))
		require.NoError(t, err)
		sum := 0
		for y := range Height {
			for x := range Width {
				r, g, b, _ := img.At(x, y).RGBA()
				sum += 3*0xffff - int(r+g+b)
			}
		}
		return sum
	}
	require.Less(t, ink("Zoë"), ink("Zoe"), "regular strokes are thinner than bold ones")
	require.Greater(t, ink("Zoë"), ink("Zo"))
}
