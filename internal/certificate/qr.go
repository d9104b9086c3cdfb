package certificate

import (
	"fmt"

	"github.com/go-pdf/fpdf"
	"github.com/skip2/go-qrcode"
)

// drawQR draws the QR code of content as vector squares in a size×size mm box at (x, y), so it scans at any zoom
// or print resolution. The page around it is white, which gives the quiet zone.
func drawQR(pdf *fpdf.Fpdf, content string, x, y, size float64) error {
	q, err := qrcode.New(content, qrcode.Medium)
	if err != nil {
		return fmt.Errorf("encode qr code: %w", err)
	}
	q.DisableBorder = true
	bm := q.Bitmap()
	n := float64(len(bm))
	m := size / n
	pdf.SetFillColor(0, 0, 0)
	for r, row := range bm {
		// One rectangle per horizontal run of dark modules keeps the content stream short.
		for c := 0; c < len(row); {
			if !row[c] {
				c++
				continue
			}
			start := c
			for c < len(row) && row[c] {
				c++
			}
			// A hair of overlap hides the seams anti-aliasing renderers leave between rows.
			pdf.Rect(x+float64(start)*m, y+float64(r)*m, float64(c-start)*m, m+0.02, "F")
		}
	}
	return nil
}
