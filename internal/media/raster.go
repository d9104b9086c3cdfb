package media

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
)

// JPEGQuality is the quality of re-encoded JPEG variants.
const JPEGQuality = 85

type rasterFormat struct {
	name         string
	contentType  string
	ext          string
	decodeConfig func([]byte) (image.Config, error)
	decode       func([]byte) (image.Image, error)
	encode       func(*bytes.Buffer, image.Image) error
}

// Each format calls its own decoder rather than image.Decode, so that a decoder registered elsewhere in the binary
// (GIF, WebP, ...) can never widen what the upload accepts.
var (
	formatPNG = rasterFormat{
		name: "PNG", contentType: ContentTypePNG, ext: "png",
		decodeConfig: func(b []byte) (image.Config, error) { return png.DecodeConfig(bytes.NewReader(b)) },
		decode:       func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) },
		encode: func(w *bytes.Buffer, m image.Image) error {
			enc := png.Encoder{CompressionLevel: png.DefaultCompression}
			return enc.Encode(w, m)
		},
	}
	formatJPEG = rasterFormat{
		name: "JPEG", contentType: ContentTypeJPEG, ext: "jpg",
		decodeConfig: func(b []byte) (image.Config, error) { return jpeg.DecodeConfig(bytes.NewReader(b)) },
		decode:       func(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) },
		encode: func(w *bytes.Buffer, m image.Image) error {
			return jpeg.Encode(w, m, &jpeg.Options{Quality: JPEGQuality})
		},
	}
)

func processRaster(data []byte, f rasterFormat, lim Limits) (Result, error) {
	// The header alone gives the dimensions: refuse oversized canvases before the decoder allocates them.
	cfg, err := f.decodeConfig(data)
	if err != nil {
		return Result{}, reject(ErrCorrupt, err, "%s header cannot be read", f.name)
	}
	w, h := cfg.Width, cfg.Height
	if w <= 0 || h <= 0 {
		return Result{}, reject(ErrCorrupt, nil, "%s has empty dimensions %dx%d", f.name, w, h)
	}
	if w > lim.MaxWidth || h > lim.MaxHeight {
		return Result{}, reject(ErrTooLarge, nil, "image is %dx%d pixels, the limit is %dx%d",
			w, h, lim.MaxWidth, lim.MaxHeight)
	}
	// int64 so that the product cannot overflow whatever the limits are.
	if int64(w)*int64(h) > int64(lim.MaxPixels) {
		return Result{}, reject(ErrTooManyPixels, nil, "image has %d pixels (%dx%d), the limit is %d",
			int64(w)*int64(h), w, h, lim.MaxPixels)
	}

	src, err := f.decode(data)
	if err != nil {
		return Result{}, reject(ErrCorrupt, err, "%s data is truncated or malformed", f.name)
	}
	if b := src.Bounds(); b.Dx() != w || b.Dy() != h {
		return Result{}, reject(ErrCorrupt, nil, "%s header and data disagree on the dimensions", f.name)
	}

	medium := fit(src, MediumBox)
	// The small variant is scaled from the medium one: much cheaper than from a large original, and a 4x reduction
	// with Catmull-Rom keeps the detail a 128-pixel thumbnail can show.
	small := fit(medium, SmallBox)
	mediumBytes, err := encode(f, medium)
	if err != nil {
		return Result{}, fmt.Errorf("encode medium %s: %w", f.name, err)
	}
	smallBytes, err := encode(f, small)
	if err != nil {
		return Result{}, fmt.Errorf("encode small %s: %w", f.name, err)
	}
	return Result{
		ContentType: f.contentType, Ext: f.ext, Width: w, Height: h,
		Original: data, Medium: mediumBytes, Small: smallBytes,
	}, nil
}

// fit returns src scaled to fit within box x box, keeping the aspect ratio; src itself when it already fits
// (never upscaled). Re-encoding either result drops every metadata chunk of the upload.
func fit(src image.Image, box int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= box && h <= box {
		return src
	}
	if p, ok := src.(*image.Paletted); ok {
		src = paletteToRGBA(p)
	}
	nw, nh := fitSize(w, h, box)
	// *image.RGBA as destination takes x/image/draw's fast paths for the RGBA, NRGBA, Gray and YCbCr sources that the
	// PNG and JPEG decoders return.
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	return dst
}

// paletteToRGBA expands a paletted image (common for optimized badge PNGs) by table look-up: x/image/draw has no
// fast path for *image.Paletted and would otherwise go through At() per pixel, about twice as slow.
func paletteToRGBA(p *image.Paletted) *image.RGBA {
	var table [256][4]uint8
	for i, c := range p.Palette {
		r, g, b, a := c.RGBA()
		table[i] = [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
	}
	b := p.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		srow := p.Pix[y*p.Stride : y*p.Stride+b.Dx()]
		drow := dst.Pix[y*dst.Stride : y*dst.Stride+4*b.Dx()]
		for x, idx := range srow {
			copy(drow[4*x:4*x+4], table[idx][:])
		}
	}
	return dst
}

// fitSize returns the size of a w x h image scaled down to fit within box x box, each side at least 1.
func fitSize(w, h, box int) (int, int) {
	if w >= h {
		return box, max(1, (h*box+w/2)/w)
	}
	return max(1, (w*box+h/2)/h), box
}

func encode(f rasterFormat, m image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.encode(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
