package media

import "testing"

func benchmarkProcess(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Process(data, Limits{}); err != nil {
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
		if _, err := Process(data, Limits{}); err == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkProcessPalettedPNG2000 is a 2000x2000 paletted PNG, the usual output of PNG optimizers.
func BenchmarkProcessPalettedPNG2000(b *testing.B) {
	benchmarkProcess(b, mustPalettedPNG(b, 2000, 2000))
}
