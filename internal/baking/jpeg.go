package baking

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"image/png"
)

// jpegToPNG converts a JPEG badge to PNG, since a JPEG has no place for a baked credential. The dimensions are
// checked against MaxPixels before any pixel is decoded, so a small file that claims a huge image is refused
// without allocating it.
func jpegToPNG(img []byte) ([]byte, error) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return nil, fmt.Errorf("jpeg: decode header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return nil, fmt.Errorf("jpeg: %d×%d pixels, limit %d", cfg.Width, cfg.Height, MaxPixels)
	}
	m, err := jpeg.Decode(bytes.NewReader(img))
	if err != nil {
		return nil, fmt.Errorf("jpeg: decode: %w", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		return nil, fmt.Errorf("png: encode: %w", err)
	}
	return buf.Bytes(), nil
}
