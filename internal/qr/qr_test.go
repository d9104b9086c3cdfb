package qr

import (
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
	zxdecoder "github.com/makiuchi-d/gozxing/qrcode/decoder"
	zxencoder "github.com/makiuchi-d/gozxing/qrcode/encoder"
	goqrcode "github.com/skip2/go-qrcode"
	"github.com/stretchr/testify/require"
)

// offerLink is an offer link as the notify step encodes it, on a base URL of the given length.
func offerLink(r *rand.Rand, baseLen int) string {
	base := "https://" + strings.Repeat("b", max(baseLen-8, 1))
	id := fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xffff, r.Uint64()&0xffffffffffff)
	return "openid-credential-offer://?credential_offer_uri=" + url.QueryEscape(base+"/oid4vci/offers/"+id)
}

// texts are the contents checked: offer links from versions 6 to 13 (version information from 7 on), and
// numeric, alphanumeric and short byte contents (the other modes, version 1).
func texts() []string {
	r := rand.New(rand.NewPCG(1, 2))
	out := []string{"0123456789", "HTTPS://EXAMPLE.COM/A", "a", "https://badges.example.com/credentials/1"}
	for i := range 120 {
		out = append(out, offerLink(r, 16+i%10*20))
	}
	return out
}

// TestEncode_SameAsZXing: every code has the version, the modules and so the mask that ZXing's encoder (as
// gozxing ports it) gives the same text at level M: the same codewords, and the same choice by the penalty rules.
func TestEncode_SameAsZXing(t *testing.T) {
	versions := map[int]bool{}
	for _, text := range texts() {
		c, err := Encode(text)
		require.NoError(t, err)
		want, err := zxencoder.Encoder_encodeWithoutHint(text, zxdecoder.ErrorCorrectionLevel_M)
		require.NoError(t, err)
		m := want.GetMatrix()
		require.Equal(t, m.GetWidth(), c.Size, "size of %q", text)
		versions[want.GetVersion().GetVersionNumber()] = true
		for y := range c.Size {
			for x := range c.Size {
				if c.Dark(x, y) != (m.Get(x, y) == 1) {
					t.Fatalf("%q: module (%d, %d) differs from ZXing's (mask %d)", text, x, y, want.GetMaskPattern())
				}
			}
		}
	}
	require.GreaterOrEqual(t, len(versions), 6, "versions covered: %v", versions)
}

// TestEncode_Decodes: a decoder reads back what was encoded, from a rendering with a quiet zone.
func TestEncode_Decodes(t *testing.T) {
	for _, text := range texts()[:20] {
		c, err := Encode(text)
		require.NoError(t, err)
		bmp, err := gozxing.NewBinaryBitmapFromImage(render(c, 4))
		require.NoError(t, err)
		got, err := zxqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: true})
		require.NoError(t, err, text)
		require.Equal(t, text, got.GetText())
	}
}

func TestEncode_TooLong(t *testing.T) {
	_, err := Encode(strings.Repeat("x", 2400)) // version 40-M holds 2,331 bytes
	require.ErrorIs(t, err, ErrTooLong)
}

// TestPenalty_Rules scores small grids whose penalty is worked out by hand.
func TestPenalty_Rules(t *testing.T) {
	grid := func(rows ...string) ([]bool, int) {
		var d []bool
		for _, r := range rows {
			for _, c := range r {
				d = append(d, c == '#')
			}
		}
		return d, len(rows)
	}
	line := func(s string) []bool { d, _ := grid(s); return d }
	// All light 5×5: each row and column a run of 5 (10 × 3), 16 2×2 blocks (48), all light (10 × 10).
	d, n := grid(".....", ".....", ".....", ".....", ".....")
	require.Equal(t, 30+48+100, penalty(d, n, make([]bool, n*n)))
	require.Equal(t, 3, runs(d[:5]))
	require.Equal(t, 48, blocks(d, n))
	require.Equal(t, 100, balance(d))
	// A finder-like row with four light modules after it (and, past the left edge, before it): one N3 penalty.
	require.Equal(t, 40, finderLike(line("#.###.#....")))
	require.Equal(t, 40, finderLike(line("....#.###.#")))
	require.Equal(t, 0, finderLike(line("#..#.###.#.#...")), "dark modules on both sides")
	require.Equal(t, 5, runs(line("#######")), "a run of 7")
	// A checkerboard: no run, no block, half dark.
	d, n = grid("#.#.#.", ".#.#.#", "#.#.#.", ".#.#.#", "#.#.#.", ".#.#.#")
	require.Equal(t, 0, penalty(d, n, make([]bool, n*n)))
}

func render(c *Code, scale int) image.Image {
	side := (c.Size + 8) * scale
	img := image.NewGray(image.Rect(0, 0, side, side))
	for y := range side {
		for x := range side {
			mx, my := x/scale-4, y/scale-4
			v := color.Gray{Y: 255}
			if mx >= 0 && my >= 0 && mx < c.Size && my < c.Size && c.Dark(mx, my) {
				v = color.Gray{}
			}
			img.SetGray(x, y, v)
		}
	}
	return img
}

func BenchmarkEncode(b *testing.B) {
	text := offerLink(rand.New(rand.NewPCG(1, 2)), 26)
	for b.Loop() {
		if _, err := Encode(text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode_GoQRCode is the encoder used before, on the same link, for the ratio in one run.
func BenchmarkEncode_GoQRCode(b *testing.B) {
	text := offerLink(rand.New(rand.NewPCG(1, 2)), 26)
	for b.Loop() {
		q, err := goqrcode.New(text, goqrcode.Medium)
		if err != nil {
			b.Fatal(err)
		}
		_ = q.Bitmap()
	}
}
