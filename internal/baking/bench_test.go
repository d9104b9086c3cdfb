package baking

import "testing"

// BenchmarkBakePNG bakes the 0.5 KB test credential into a 512×512 badge PNG.
func BenchmarkBakePNG(b *testing.B) {
	img := mustPNG(b, 512, 512)
	b.SetBytes(int64(len(img)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Bake(img, testCredential); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnbakePNG reads the credential back from the same badge.
func BenchmarkUnbakePNG(b *testing.B) {
	img, _, err := Bake(mustPNG(b, 512, 512), testCredential)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unbake(img); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBakeSVG bakes the credential into a small SVG badge.
func BenchmarkBakeSVG(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Bake([]byte(plainSVG), testCredential); err != nil {
			b.Fatal(err)
		}
	}
}
