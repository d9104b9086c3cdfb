package media

import (
	"bytes"
	"image"
	_ "image/jpeg" // image.Decode in decoded
	_ "image/png"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/image/draw"
)

func benchmarkProcess(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := process(data, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProcessPNG2000 measures a 2000x2000 RGBA PNG: decode, two Catmull-Rom downscales, two PNG encodes.
func BenchmarkProcessPNG2000(b *testing.B) { benchmarkProcess(b, mustPNG(b, 2000, 2000)) }

// BenchmarkProcessJPEG2000 is the same for a 2000x2000 JPEG.
func BenchmarkProcessJPEG2000(b *testing.B) { benchmarkProcess(b, mustJPEG(b, 2000, 2000)) }

// BenchmarkProcessSVG measures validating and sanitizing a small SVG.
func BenchmarkProcessSVG(b *testing.B) {
	benchmarkProcess(b, []byte(svgOpen+`<g onclick="x()"><rect width="10" height="10" fill="red"/><script>x()</script><text>hello</text></g></svg>`))
}

// BenchmarkRejectHugePNGHeader measures refusing a PNG whose header claims 100000x100000.
func BenchmarkRejectHugePNGHeader(b *testing.B) {
	data := hugePNGHeader(100000, 100000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := process(data, Limits{}); err == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkProcessPalettedPNG2000 is a 2000x2000 paletted PNG, the usual output of PNG optimizers.
func BenchmarkProcessPalettedPNG2000(b *testing.B) {
	benchmarkProcess(b, mustPalettedPNG(b, 2000, 2000))
}

// BenchmarkFit compares fit (box filter, then Catmull-Rom) with fitDirect, the Catmull-Rom-only resize it replaced,
// on the images the decoders return for a 36-megapixel PNG and JPEG and a 2000x2000 paletted PNG.
func BenchmarkFit(b *testing.B) {
	inputs := []struct {
		name string
		img  image.Image
	}{
		{"rgba6000", decoded(b, mustPNG(b, 6000, 6000))},
		{"ycbcr6000", decoded(b, mustJPEG(b, 6000, 6000))},
		{"paletted2000", decoded(b, mustPalettedPNG(b, 2000, 2000))},
	}
	for _, in := range inputs {
		for _, impl := range []struct {
			name string
			fit  func(image.Image, int) image.Image
		}{{"box+catmullrom", fit}, {"catmullrom", fitDirect}} {
			b.Run(in.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					impl.fit(impl.fit(in.img, MediumBox), SmallBox)
				}
			})
		}
	}
}

func decoded(tb testing.TB, data []byte) image.Image {
	tb.Helper()
	m, _, err := image.Decode(bytes.NewReader(data))
	require.NoError(tb, err)
	return m
}

// fitDirect is the resize before the box filter: Catmull-Rom from the original, paletted images expanded first.
func fitDirect(src image.Image, box int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= box && h <= box {
		return src
	}
	if p, ok := src.(*image.Paletted); ok {
		src = shrink(p, 1)
	}
	nw, nh := fitSize(w, h, box)
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	return dst
}
