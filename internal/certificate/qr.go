package certificate

import (
	"fmt"

	"github.com/go-pdf/fpdf"

	"github.com/badged/badged/internal/qr"
)

// drawQR draws the QR code of content as vector squares in a size×size mm box at (x, y), so it scans at any zoom
// or print resolution. The page around it is white, which gives the quiet zone.
func drawQR(pdf *fpdf.Fpdf, content string, x, y, size float64) error {
	q, err := qr.Encode(content)
	if err != nil {
		return fmt.Errorf("encode qr code: %w", err)
	}
	m := size / float64(q.Size)
	pdf.SetFillColor(0, 0, 0)
	for r := range q.Size {
		// One rectangle per horizontal run of dark modules keeps the content stream short.
		for c := 0; c < q.Size; {
			if !q.Dark(c, r) {
				c++
				continue
			}
			start := c
			for c < q.Size && q.Dark(c, r) {
				c++
			}
			// A hair of overlap hides the seams anti-aliasing renderers leave between rows.
			pdf.Rect(x+float64(start)*m, y+float64(r)*m, float64(c-start)*m, m+0.02, "F")
		}
	}
	return nil
}
