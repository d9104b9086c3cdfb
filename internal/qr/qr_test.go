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

// texts are the contents checked: offer links of versions 8 to 13 (with version information, from 7 on), and
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
	row := func(s string) line {
		var l line
		for i, c := range s {
			if c == '#' {
				l.set(i)
			}
		}
		return l
	}
	// All light 5×5: each row and column a run of 5 (10 × 3), 16 2×2 blocks (48), all light (10 × 10).
	rows, cols, n := grid(".....", ".....", ".....", ".....", ".....")
	require.Equal(t, 30+48+100, penalty(rows, cols, n))
	require.Equal(t, 3, runs(rows[0], masksFor(n)))
	require.Equal(t, 4, blocks(rows[0], rows[1], masksFor(n)))
	require.Equal(t, 100, balance(0, n*n))
	require.Equal(t, 5, runs(row("#######"), masksFor(7)), "a run of 7")
	require.Equal(t, 3+4, runs(row("#####......"), masksFor(11)), "a dark run of 5, a light run of 6")
	require.Equal(t, 40, finderLike(row("#.###.#...."), masksFor(11)))
	require.Equal(t, 40, finderLike(row("....#.###.#"), masksFor(11)))
	require.Equal(t, 40, finderLike(row("#.###.#"), masksFor(7)), "past both edges: light")
	require.Equal(t, 0, finderLike(row("#..#.###.#.#..."), masksFor(15)), "dark modules on both sides")
	// A checkerboard: no run, no block, half dark.
	rows, cols, n = grid("#.#.#.", ".#.#.#", "#.#.#.", ".#.#.#", "#.#.#.", ".#.#.#")
	require.Equal(t, 0, penalty(rows, cols, n))
}

// TestPenalty_SameAsByModule: the line-at-a-time rules score random grids of every size from version 1's to
// version 40's as the rules applied module by module do.
func TestPenalty_SameAsByModule(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for size := 21; size <= 177; size += 4 {
		for range 5 {
			dark := make([]bool, size*size)
			density := r.Float64()
			for i := range dark {
				dark[i] = r.Float64() < density
			}
			rows, cols := make([]line, size), make([]line, size)
			for i, d := range dark {
				if d {
					rows[i/size].set(i % size)
					cols[i%size].set(i / size)
				}
			}
			require.Equal(t, penaltyByModule(dark, size), penalty(rows, cols, size), "size %d, density %.2f", size, density)
		}
	}
}

// grid reads a square grid drawn with '#' for dark modules, as rows and columns.
func grid(drawn ...string) (rows, cols []line, size int) {
	size = len(drawn)
	rows, cols = make([]line, size), make([]line, size)
	for y, r := range drawn {
		for x, c := range r {
			if c == '#' {
				rows[y].set(x)
				cols[x].set(y)
			}
		}
	}
	return rows, cols, size
}

// penaltyByModule applies penalty's four rules module by module: the reference the line-at-a-time rules are
// checked against.
func penaltyByModule(dark []bool, size int) int {
	at := func(x, y int, transposed bool) bool {
		if transposed {
			x, y = y, x
		}
		return dark[y*size+x]
	}
	score, d := 0, 0
	for _, t := range [2]bool{false, true} {
		for y := range size {
			n := 1
			for x := 1; x <= size; x++ {
				if x < size && at(x, y, t) == at(x-1, y, t) {
					n++
					continue
				}
				if n >= 5 {
					score += 3 + n - 5
				}
				n = 1
			}
			light := func(from, to int) bool {
				for x := max(from, 0); x < min(to, size); x++ {
					if at(x, y, t) {
						return false
					}
				}
				return true
			}
			for x := 0; x+7 <= size; x++ {
				match := true
				for i, want := range [7]bool{true, false, true, true, true, false, true} {
					match = match && at(x+i, y, t) == want
				}
				if match && (light(x-4, x) || light(x+7, x+11)) {
					score += 40
				}
			}
		}
	}
	for y := range size - 1 {
		for x := range size - 1 {
			if c := at(x, y, false); at(x+1, y, false) == c && at(x, y+1, false) == c && at(x+1, y+1, false) == c {
				score += 3
			}
		}
	}
	for _, c := range dark {
		if c {
			d++
		}
	}
	return score + 10*(max(2*d-size*size, size*size-2*d)*10/(size*size))
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
