package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProcess_Accepts(t *testing.T) {
	tests := []struct {
		name            string
		data            []byte
		wantContentType string
		wantExt         string
		wantW, wantH    int
	}{
		{"png", mustPNG(t, 640, 480), ContentTypePNG, "png", 640, 480},
		{"jpeg", mustJPEG(t, 640, 480), ContentTypeJPEG, "jpg", 640, 480},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32"><rect width="10" height="10"/></svg>`), ContentTypeSVG, "svg", 64, 32},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := process(tc.data, Limits{})
			require.NoError(t, err)
			require.Equal(t, tc.wantContentType, res.ContentType)
			require.Equal(t, tc.wantExt, res.Ext)
			require.Equal(t, tc.wantW, res.Width)
			require.Equal(t, tc.wantH, res.Height)
			require.NotEmpty(t, res.Original)
			require.NotEmpty(t, res.Medium)
			require.NotEmpty(t, res.Small)
			if tc.wantExt != "svg" {
				require.Equal(t, tc.data, res.Original, "raster original is the upload unchanged")
			}
		})
	}
}

func TestProcess_Rejects(t *testing.T) {
	png := mustPNG(t, 300, 200)
	jpg := mustJPEG(t, 300, 200)
	tests := []struct {
		name    string
		data    []byte
		lim     Limits
		wantErr error
	}{
		{"empty", nil, Limits{}, ErrCorrupt},
		{"gif", mustGIF(t, 10, 10), Limits{}, ErrUnsupportedType},
		{"plain text", []byte("hello, I am a PNG, trust me"), Limits{}, ErrUnsupportedType},
		{"pdf", []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), Limits{}, ErrUnsupportedType},
		{"html", []byte("<!DOCTYPE html>\n<html><body><script>alert(1)</script></body></html>"), Limits{}, ErrUnsupportedType},
		{"html not xml", []byte("<html><meta charset=utf-8><img src=x onerror=alert(1)>"), Limits{}, ErrUnsupportedType},
		{"xml other root", []byte(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"/>`), Limits{}, ErrUnsupportedType},
		{"webp", []byte("RIFF\x24\x00\x00\x00WEBPVP8 "), Limits{}, ErrUnsupportedType},
		{"png signature then junk", append(append([]byte{}, pngMagic...), "not a chunk at all"...), Limits{}, ErrCorrupt},
		{"truncated png", png[:len(png)/2], Limits{}, ErrCorrupt},
		{"truncated jpeg", jpg[:len(jpg)/2], Limits{}, ErrCorrupt},
		{"png header only", png[:40], Limits{}, ErrCorrupt},
		{"png 100000x100000", hugePNGHeader(100000, 100000), Limits{}, ErrTooLarge},
		{"png 100000x100000 wide limits", hugePNGHeader(100000, 100000), Limits{MaxWidth: 1 << 30, MaxHeight: 1 << 30}, ErrTooManyPixels},
		{"png zero width", hugePNGHeader(0, 10), Limits{}, ErrCorrupt},
		{"jpeg 60000x60000", hugeJPEGHeader(60000, 60000), Limits{}, ErrTooLarge},
		{"width over limit", png, Limits{MaxWidth: 299}, ErrTooLarge},
		{"height over limit", png, Limits{MaxHeight: 199}, ErrTooLarge},
		{"pixels over limit", png, Limits{MaxPixels: 300*200 - 1}, ErrTooManyPixels},
		{"bytes over limit", png, Limits{MaxBytes: len(png) - 1}, ErrFileTooLarge},
		{"bytes over default limit", append(bytes.Repeat([]byte{0}, 5<<20), 0), Limits{}, ErrFileTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := process(tc.data, tc.lim)
			require.ErrorIs(t, err, tc.wantErr)
			var me *Error
			require.True(t, errors.As(err, &me), "want *Error, got %T", err)
			require.Equal(t, FieldImage, me.Field)
			require.NotEmpty(t, me.Reason)
		})
	}
}

// A header claiming a 40-gigabyte canvas must be refused from the header alone: no pixel buffer, no delay.
func TestProcess_HugeHeaderRejectedWithoutAllocating(t *testing.T) {
	for _, data := range [][]byte{hugePNGHeader(100000, 100000), hugeJPEGHeader(65535, 65535)} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := process(data, Limits{MaxWidth: 1 << 20, MaxHeight: 1 << 20})
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		require.ErrorIs(t, err, ErrTooManyPixels)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "allocated bytes")
		require.Less(t, elapsed, 100*time.Millisecond)
	}
}

func TestProcess_VariantSizes(t *testing.T) {
	tests := []struct {
		w, h             int
		mediumW, mediumH int
		smallW, smallH   int
	}{
		{1200, 600, 512, 256, 128, 64},
		{600, 1200, 256, 512, 64, 128},
		{600, 600, 512, 512, 128, 128},
		{300, 200, 300, 200, 128, 85}, // medium not upscaled
		{100, 50, 100, 50, 100, 50},   // neither upscaled
		{1, 1, 1, 1, 1, 1},
		{3000, 2, 512, 1, 128, 1}, // a side never rounds to 0
	}
	for _, tc := range tests {
		for _, f := range []struct {
			kind, ext string
			data      []byte
		}{
			{"png", "png", mustPNG(t, tc.w, tc.h)},
			{"paletted_png", "png", mustPalettedPNG(t, tc.w, tc.h)},
			{"jpeg", "jpg", mustJPEG(t, tc.w, tc.h)},
		} {
			t.Run(fmt.Sprintf("%s_%dx%d", f.kind, tc.w, tc.h), func(t *testing.T) {
				res, err := process(f.data, Limits{})
				require.NoError(t, err)
				require.Equal(t, f.ext, res.Ext)
				require.Equal(t, tc.w, res.Width)
				require.Equal(t, tc.h, res.Height)
				w, h := mustDecodeSize(t, f.ext, res.Medium) // decodes in the original format
				require.Equal(t, [2]int{tc.mediumW, tc.mediumH}, [2]int{w, h}, "medium")
				w, h = mustDecodeSize(t, f.ext, res.Small)
				require.Equal(t, [2]int{tc.smallW, tc.smallH}, [2]int{w, h}, "small")
			})
		}
	}
}

func TestProcess_StripsMetadata(t *testing.T) {
	const secret = "GPS 37.5665N 126.9780E"
	tests := []struct {
		name string
		data []byte
	}{
		{"png tEXt small image", withPNGText(t, mustPNG(t, 64, 64), "Comment", secret)},
		{"png tEXt scaled", withPNGText(t, mustPNG(t, 800, 600), "Comment", secret)},
		{"jpeg exif small image", withJPEGExif(mustJPEG(t, 64, 64), secret)},
		{"jpeg exif scaled", withJPEGExif(mustJPEG(t, 800, 600), secret)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := process(tc.data, Limits{})
			require.NoError(t, err)
			require.Contains(t, string(res.Original), secret, "original is kept as uploaded")
			require.NotContains(t, string(res.Medium), secret)
			require.NotContains(t, string(res.Small), secret)
			require.NotContains(t, string(res.Medium), "Exif")
		})
	}
}

func TestServeHeaders(t *testing.T) {
	for _, ct := range []string{ContentTypePNG, ContentTypeJPEG, ContentTypeSVG} {
		h := ServeHeaders(ct)
		require.Equal(t, ct, h["Content-Type"])
		require.Equal(t, "nosniff", h["X-Content-Type-Options"])
		require.Equal(t, "default-src 'none'; style-src 'unsafe-inline'; sandbox", h["Content-Security-Policy"])
		require.Empty(t, h["Content-Disposition"])
	}
	h := ServeHeaders("text/html")
	require.Equal(t, "application/octet-stream", h["Content-Type"])
	require.Equal(t, "attachment", h["Content-Disposition"])
	require.Equal(t, "nosniff", h["X-Content-Type-Options"])
}

func TestError_Message(t *testing.T) {
	_, err := process([]byte("GIF89a"), Limits{})
	require.True(t, strings.HasPrefix(err.Error(), "media: image: "), err.Error())
}

// Scaling keeps colours and transparency: a half transparent red square stays half transparent red.
func TestProcess_VariantKeepsColorAndAlpha(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 1000, 1000))
	draw.Draw(src, src.Bounds(), image.NewUniform(color.NRGBA{R: 255, A: 128}), image.Point{}, draw.Src)
	pal := image.NewPaletted(src.Bounds(), color.Palette{color.NRGBA{}, color.NRGBA{R: 255, A: 128}})
	draw.Draw(pal, pal.Bounds(), src, image.Point{}, draw.Src)
	for name, m := range map[string]image.Image{"nrgba": src, "paletted": pal} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, png.Encode(&buf, m))
			res, err := process(buf.Bytes(), Limits{})
			require.NoError(t, err)
			for _, v := range [][]byte{res.Medium, res.Small} {
				out, err := png.Decode(bytes.NewReader(v))
				require.NoError(t, err)
				c := color.NRGBAModel.Convert(out.At(out.Bounds().Dx()/2, out.Bounds().Dy()/2)).(color.NRGBA)
				require.InDelta(t, 255, int(c.R), 2)
				require.InDelta(t, 0, int(c.G), 2)
				require.InDelta(t, 128, int(c.A), 2)
			}
		})
	}
}
