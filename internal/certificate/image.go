package certificate

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // badge images may be JPEG
	"image/png"

	"golang.org/x/image/draw"
)

// Limits on the badge image, which comes from a user upload.
const (
	// MaxImageBytes is the largest badge image accepted.
	MaxImageBytes = 16 << 20
	// MaxImagePixels is the largest badge image (width × height) that is decoded.
	MaxImagePixels = 25_000_000
	// maxEmbedSide is the longest side, in pixels, of the image embedded in the PDF: 64 mm at about 400 dpi.
	maxEmbedSide = 1000
)

// ErrBadImage is wrapped in the error Render returns for a badge image it cannot read.
var ErrBadImage = errors.New("unreadable badge image (want PNG, JPEG or SVG)")

// isSVG reports whether img looks like an XML document (an SVG badge): a '<' after an optional BOM and white space.
func isSVG(img []byte) bool {
	rest := bytes.TrimLeft(bytes.TrimPrefix(img, []byte("\xEF\xBB\xBF")), " \t\r\n")
	return len(rest) > 0 && rest[0] == '<'
}

// normalizeImage decodes a PNG or JPEG badge and returns an opaque 8-bit PNG of at most maxEmbedSide pixels a side,
// flattened on white. fpdf cannot read 16-bit or interlaced PNGs, and a photo-sized upload would bloat every PDF,
// so the image is always re-encoded. The dimensions are checked before any pixel is decoded.
func normalizeImage(img []byte) (pngBytes []byte, w, h int, err error) {
	if len(img) > MaxImageBytes {
		return nil, 0, 0, fmt.Errorf("%w: %d bytes, limit %d", ErrBadImage, len(img), MaxImageBytes)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %w", ErrBadImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return nil, 0, 0, fmt.Errorf("%w: %d×%d pixels, limit %d", ErrBadImage, cfg.Width, cfg.Height, MaxImagePixels)
	}
	src, _, err := image.Decode(bytes.NewReader(img))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %w", ErrBadImage, err)
	}
	w, h = cfg.Width, cfg.Height
	if w > maxEmbedSide || h > maxEmbedSide {
		if w >= h {
			w, h = maxEmbedSide, max(1, h*maxEmbedSide/w)
		} else {
			w, h = max(1, w*maxEmbedSide/h), maxEmbedSide
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	if w == cfg.Width && h == cfg.Height {
		draw.Draw(dst, dst.Bounds(), src, src.Bounds().Min, draw.Over) // fast path, no resampling
	} else {
		draw.BiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, dst); err != nil {
		return nil, 0, 0, fmt.Errorf("encode badge image: %w", err)
	}
	return buf.Bytes(), w, h, nil
}
