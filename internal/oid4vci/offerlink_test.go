package oid4vci

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	"github.com/google/uuid"
	qrcode "github.com/skip2/go-qrcode"
	"github.com/stretchr/testify/require"
)

// TestOfferQR_SameImage: the offer's QR code, drawn and written by qrPNG, is go-qrcode's own PNG of the link pixel
// for pixel; only the file's encoding is ours.
func TestOfferQR_SameImage(t *testing.T) {
	link := OfferLink(OfferURI("https://badges.example.com", uuid.MustParse("0b7c6f5e-64a3-4b8e-9d2a-6a9f2f1e0c11")))
	got, err := OfferQR(link)
	require.NoError(t, err)
	want, err := qrcode.Encode(link, qrcode.Medium, qrPixels)
	require.NoError(t, err)
	gi, wi := decodePNG(t, got), decodePNG(t, want)
	require.Equal(t, image.Rect(0, 0, qrPixels, qrPixels), gi.Bounds())
	require.Equal(t, wi.Bounds(), gi.Bounds())
	dark := 0
	for y := range qrPixels {
		for x := range qrPixels {
			gr, gg, gb, _ := gi.At(x, y).RGBA()
			wr, wg, wb, _ := wi.At(x, y).RGBA()
			require.Equal(t, [3]uint32{wr, wg, wb}, [3]uint32{gr, gg, gb}, "pixel %d,%d", x, y)
			if gr == 0 {
				dark++
			}
		}
	}
	require.Greater(t, dark, qrPixels*qrPixels/5, "a QR code is roughly half dark modules")
	require.Less(t, len(got), 4<<10, "a mail carries one per recipient")
}

// TestOfferQR_Concurrent: the pooled compressors are not shared between concurrent codes.
func TestOfferQR_Concurrent(t *testing.T) {
	links := make([]string, 16)
	want := make([][]byte, len(links))
	for i := range links {
		links[i] = OfferLink(OfferURI("https://badges.example.com", uuid.New()))
		var err error
		want[i], err = OfferQR(links[i])
		require.NoError(t, err)
	}
	errs := make(chan error, len(links))
	got := make([][]byte, len(links))
	for i := range links {
		go func() {
			var err error
			got[i], err = OfferQR(links[i])
			errs <- err
		}()
	}
	for range links {
		require.NoError(t, <-errs)
	}
	require.Equal(t, want, got)
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	return img
}

// BenchmarkOfferQR: one offer's QR code, as the notify step makes one per recipient.
func BenchmarkOfferQR(b *testing.B) {
	link := OfferLink(OfferURI("https://badges.example.com", uuid.New()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := OfferQR(link); err != nil {
			b.Fatal(err)
		}
	}
}
