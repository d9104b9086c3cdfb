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
// above the details list, leaving room for the evidence when there is some; it returns the y below.
func drawCriteria(pdf *fpdf.Fpdf, in Input, l labels, y float64) float64 {
	var parts []string
	for _, c := range in.Criteria {
		if c = strings.Join(strings.Fields(c), " "); c != "" {
			parts = append(parts, c)
		}
	}
	bottom := criteriaBottom
	if len(in.Evidence) > 0 {
		bottom -= evidenceLines * lineH
	}
	return drawBlock(pdf, l.criteria+": "+strings.Join(parts, " · "), len(parts) > 0, y, bottom)
}

// Evidence (OB 3.0, when the credential or the records carry it) goes under the criteria, at most evidenceLines.
const (
	lineH         = 4.6
	evidenceLines = 3
)

// drawEvidence writes "Evidence (signed in the credential): name (url) · …" centred from y, saying whether the
// credential signs it, cut with "…" to the lines that fit above the details list.
func drawEvidence(pdf *fpdf.Fpdf, in Input, l labels, y float64) {
	var parts []string
	for _, e := range in.Evidence {
		name, link := strings.Join(strings.Fields(e.Name), " "), strings.TrimSpace(e.URL)
		switch {
		case name != "" && link != "" && name != link:
			parts = append(parts, name+" ("+link+")")
		case name != "":
			parts = append(parts, name)
		case link != "":
			parts = append(parts, link)
		}
	}
	label := l.evidenceRecords
	if in.EvidenceSigned {
		label = l.evidenceSigned
	}
	drawBlock(pdf, label+": "+strings.Join(parts, " · "), len(parts) > 0, y, criteriaBottom)
}

// drawBlock writes s (when show) centred in muted small type from y, cut with "…" to the lines that fit above
// bottom, and returns the y below it.
func drawBlock(pdf *fpdf.Fpdf, s string, show bool, y, bottom float64) float64 {
	if !show {
		return y
	}
	pdf.SetFont(familyBody, "", 9)
	setText(pdf, muted)
	lines := pdf.SplitText(s, contentW)
	fit := max(0, int((bottom-y)/lineH))
	if len(lines) > fit {
		if fit == 0 {
			return y
		}
		lines = append(lines[:fit-1], ellipsize(pdf, lines[fit-1]+"…", contentW))
	}
	for i, line := range lines {
		pdf.SetXY((pageW-contentW)/2, y+float64(i)*lineH)
		pdf.CellFormat(contentW, lineH, line, "", 0, "C", false, 0, "")
	}
	return y + float64(len(lines))*lineH
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
