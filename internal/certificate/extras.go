package certificate

import (
	"bytes"
	"strings"

	"github.com/go-pdf/fpdf"
)

// Where the optional parts go: the criteria between the badge name and the details list, the signature above the
// issuer's name at the bottom centre, clear of the QR caption on the right.
const (
	criteriaBottom = qrY - 5 // the criteria never reach the details list
	sigW, sigH     = 44.0, 17.0
	sigY           = 240.0
)

// drawCriteria writes "Criteria: …" centred from y, the narratives joined, cut with "…" to the lines that fit
// above the details list.
func drawCriteria(pdf *fpdf.Fpdf, in Input, l labels, y float64) {
	var parts []string
	for _, c := range in.Criteria {
		if c = strings.Join(strings.Fields(c), " "); c != "" {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return
	}
	const lineH = 4.6
	pdf.SetFont(familyBody, "", 9)
	setText(pdf, muted)
	lines := pdf.SplitText(l.criteria+": "+strings.Join(parts, " · "), contentW)
	fit := max(0, int((criteriaBottom-y)/lineH))
	if len(lines) > fit {
		if fit == 0 {
			return
		}
		lines = append(lines[:fit-1], ellipsize(pdf, lines[fit-1]+"…", contentW))
	}
	for i, line := range lines {
		pdf.SetXY((pageW-contentW)/2, y+float64(i)*lineH)
		pdf.CellFormat(contentW, lineH, line, "", 0, "C", false, 0, "")
	}
}

// drawSignature places the badge's signature image, scaled to fit its box, above the issuer's name. An SVG or
// empty image draws nothing (no rasterizer is embedded).
func drawSignature(pdf *fpdf.Fpdf, img []byte) error {
	if len(img) == 0 || isSVG(img) {
		return nil
	}
	png, w, h, err := normalizeImage(img)
	if err != nil {
		return err
	}
	pdf.RegisterImageOptionsReader("signature", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(png))
	dw, dh := sigW, sigW*float64(h)/float64(w)
	if dh > sigH {
		dw, dh = sigH*float64(w)/float64(h), sigH
	}
	pdf.ImageOptions("signature", (pageW-dw)/2, sigY+(sigH-dh), dw, dh, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	return nil
}
