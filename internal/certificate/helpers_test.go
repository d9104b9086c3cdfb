package certificate

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// badgeImage draws a round badge (blue disc, gold ring, star, transparent corners) of side n pixels.
func badgeImage(n int) image.Image {
	m := image.NewNRGBA(image.Rect(0, 0, n, n))
	c := float64(n) / 2
	for y := range n {
		for x := range n {
			dx, dy := float64(x)+0.5-c, float64(y)+0.5-c
			d := math.Hypot(dx, dy) / c
			switch {
			case d > 1:
				continue // transparent corner
			case d > 0.86:
				m.Set(x, y, color.NRGBA{R: 201, G: 162, B: 39, A: 255})
			case inStar(dx/c, dy/c):
				m.Set(x, y, color.NRGBA{R: 255, G: 255, B: 255, A: 255})
			default:
				m.Set(x, y, color.NRGBA{R: 21, G: 101, B: 192, A: 255})
			}
		}
	}
	return m
}

// inStar reports whether (x, y), in unit-circle coordinates, is inside a five-pointed star of radius 0.55.
func inStar(x, y float64) bool {
	r, a := math.Hypot(x, y), math.Atan2(y, x)+math.Pi/2
	k := math.Mod(a+2*math.Pi, 2*math.Pi/5) - math.Pi/5 // angle from the nearest point
	edge := 0.55 * 0.5 / (0.5*math.Cos(k) + 0.9*math.Abs(math.Sin(k)))
	return r < edge
}

func mustBadgePNG(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, png.Encode(&buf, badgeImage(n)))
	return buf.Bytes()
}

func mustBadgeJPEG(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, jpeg.Encode(&buf, badgeImage(n), &jpeg.Options{Quality: 85}))
	return buf.Bytes()
}

// fixIHDRCRC recomputes the CRC of the IHDR chunk of a PNG after its data was patched.
func fixIHDRCRC(p []byte) []byte {
	out := bytes.Clone(p)
	binary.BigEndian.PutUint32(out[29:33], crc32.ChecksumIEEE(out[12:29]))
	return out
}
