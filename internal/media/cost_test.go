package media

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// costFixtures are images of every decoded layout: Go's encoders write the common ones, testdata holds what they
// cannot (interlaced PNG, PNG grey with tRNS, progressive, 4:4:4, CMYK and RGB JPEG; made with ImageMagick and cjpeg).
func costFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	const w, h = 2100, 700 // over 4 x MediumBox wide, so fit takes the box-filter path
	encodePNG := func(m image.Image) []byte {
		var b bytes.Buffer
		require.NoError(t, png.Encode(&b, m))
		return b.Bytes()
	}
	src := testImage(w, h)
	gray := image.NewGray(src.Bounds())
	gray16 := image.NewGray16(src.Bounds())
	rgba64 := image.NewNRGBA64(src.Bounds())
	for _, m := range []draw.Image{gray, gray16, rgba64} {
		draw.Draw(m, m.Bounds(), src, image.Point{}, draw.Src)
	}
	out := map[string][]byte{
		"rgba8.png":     mustPNG(t, w, h),
		"paletted.png":  encodePNG(paletted(w, h)),
		"gray8.png":     encodePNG(gray),
		"gray16.png":    encodePNG(gray16),
		"rgba16.png":    encodePNG(rgba64),
		"420.jpg":       mustJPEG(t, w, h),
		"1600x1000.png": mustPNG(t, 1600, 1000), // under 4 x MediumBox: Catmull-Rom does the whole reduction
	}
	files, err := filepath.Glob("testdata/*.[jp][pn]g")
	require.NoError(t, err)
	for _, f := range files {
		out[filepath.Base(f)], err = os.ReadFile(f)
		require.NoError(t, err)
	}
	return out
}

// paletted is a w x h image with a 256-colour palette, made without quantizing (drawing into an image.Paletted
// searches the palette for every pixel: seconds).
func paletted(w, h int) *image.Paletted {
	pal := make(color.Palette, 256)
	for i := range pal {
		pal[i] = color.NRGBA{R: uint8(i), G: uint8(255 - i), B: 128, A: uint8(128 + i/2)}
	}
	m := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for i := range m.Pix {
		m.Pix[i] = uint8(i % w * 256 / w)
	}
	return m
}

// The charge against the decode budget must cover everything Process allocates for an image (TotalAlloc counts every
// byte allocated, collected or not: at least the peak), and stay close to it so that the budget is not wasted.
func TestRasterCost_CoversAllocations(t *testing.T) {
	for name, data := range costFixtures(t) {
		t.Run(name, func(t *testing.T) {
			f := formatPNG
			if bytes.HasPrefix(data, jpegMagic) {
				f = formatJPEG
			}
			cfg, err := f.decodeConfig(data)
			require.NoError(t, err)
			charge := f.cost(data, cfg)
			p := NewProcessor(Limits{})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = p.Process(context.Background(), data)
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			allocated := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("%s %dx%d: allocated %.1f MiB, charged %.1f MiB (%.2fx)", name, cfg.Width, cfg.Height,
				float64(allocated)/(1<<20), float64(charge)/(1<<20), float64(charge)/float64(allocated))
			require.LessOrEqual(t, allocated, charge, "the charge must cover the allocations")
			require.LessOrEqual(t, charge, allocated*3/2+(2<<20), "the charge should not waste the budget")
		})
	}
}
