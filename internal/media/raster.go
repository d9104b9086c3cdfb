package media

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
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
	decodeCost   func([]byte, image.Config) int64 // upper bound on the bytes decode allocates
}

// Each format calls its own decoder rather than image.Decode, so that a decoder registered elsewhere in the binary
// (GIF, WebP, ...) can never widen what the upload accepts.
var (
	formatPNG = rasterFormat{
		name: "PNG", contentType: ContentTypePNG, ext: "png",
		decodeConfig: func(b []byte) (image.Config, error) { return png.DecodeConfig(bytes.NewReader(b)) },
		decode:       func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) },
		decodeCost:   pngDecodeCost,
		encode: func(w *bytes.Buffer, m image.Image) error {
			enc := png.Encoder{CompressionLevel: png.DefaultCompression}
			return enc.Encode(w, m)
		},
	}
	formatJPEG = rasterFormat{
		name: "JPEG", contentType: ContentTypeJPEG, ext: "jpg",
		decodeConfig: func(b []byte) (image.Config, error) { return jpeg.DecodeConfig(bytes.NewReader(b)) },
		decode:       func(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) },
		decodeCost:   jpegDecodeCost,
		encode: func(w *bytes.Buffer, m image.Image) error {
			return jpeg.Encode(w, m, &jpeg.Options{Quality: JPEGQuality})
		},
	}
)

func (p *Processor) processRaster(ctx context.Context, data []byte, f rasterFormat) (Result, error) {
	lim := p.lim
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
	cost := f.cost(data, cfg)
	if cost > lim.DecodeBudget {
		// It could never start: refuse it now rather than queue it forever.
		return Result{}, reject(ErrTooManyPixels, nil,
			"this %dx%d %s needs about %d MiB to decode, the limit is %d MiB: send an image with fewer pixels",
			w, h, f.name, cost>>20, lim.DecodeBudget>>20)
	}
	release, err := p.acquire(ctx, cost)
	if err != nil {
		return Result{}, fmt.Errorf("wait for %d MiB of decode budget: %w", cost>>20, err)
	}
	medium, small, err := variants(data, f, w, h)
	release() // after variants returned: the decoded image is unreachable
	if err != nil {
		return Result{}, err
	}
	return Result{
		ContentType: f.contentType, Ext: f.ext, Width: w, Height: h,
		Original: data, Medium: medium, Small: small,
	}, nil
}

// variants decodes data, whose header said w x h, and encodes its medium and small variants.
func variants(data []byte, f rasterFormat, w, h int) (medium, small []byte, err error) {
	src, err := f.decode(data)
	if err != nil {
		return nil, nil, reject(ErrCorrupt, err, "%s data is truncated or malformed", f.name)
	}
	if b := src.Bounds(); b.Dx() != w || b.Dy() != h {
		return nil, nil, reject(ErrCorrupt, nil, "%s header and data disagree on the dimensions", f.name)
	}
	m := fit(src, MediumBox)
	// The small variant is scaled from the medium one: much cheaper than from a large original, and a 4x reduction
	// keeps the detail a 128-pixel thumbnail can show.
	if medium, err = encode(f, m); err != nil {
		return nil, nil, fmt.Errorf("encode medium %s: %w", f.name, err)
	}
	if small, err = encode(f, fit(m, SmallBox)); err != nil {
		return nil, nil, fmt.Errorf("encode small %s: %w", f.name, err)
	}
	return medium, small, nil
}

// cost is what decoding data and making its variants allocate at most: the charge against the decode budget.
func (f rasterFormat) cost(data []byte, cfg image.Config) int64 {
	return f.decodeCost(data, cfg) + resizeCost(cfg.Width, cfg.Height)
}

func encode(f rasterFormat, m image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.encode(&buf, m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
