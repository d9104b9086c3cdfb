package oid4vci

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	"github.com/google/uuid"
	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/qr"
)

// TestOfferQR_Reads: the offer's QR code is a 300 px PNG that a decoder (ZXing's, as gozxing ports it) reads
// back as the link, with a light quiet zone of four modules around it.
func TestOfferQR_Reads(t *testing.T) {
	link := OfferLink(OfferURI("https://badges.example.com", uuid.MustParse("0b7c6f5e-64a3-4b8e-9d2a-6a9f2f1e0c11")))
	got, err := OfferQR(link)
	require.NoError(t, err)
	img := decodePNG(t, got)
	require.Equal(t, image.Rect(0, 0, qrPixels, qrPixels), img.Bounds())
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	require.NoError(t, err)
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	require.NoError(t, err)
	require.Equal(t, link, res.GetText())

	q, err := qr.Encode(link)
	require.NoError(t, err)
	border := qrPixels * quietZone / (q.Size + 2*quietZone) // whole pixels of the quiet zone on each side
	dark := 0
	for y := range qrPixels {
		for x := range qrPixels {
			r, _, _, _ := img.At(x, y).RGBA()
			inZone := x < border || y < border || x >= qrPixels-border || y >= qrPixels-border
			if r == 0 {
				dark++
				require.False(t, inZone, "dark pixel %d,%d in the quiet zone", x, y)
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
