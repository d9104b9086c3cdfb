package certificate

import (
	"strings"

	"github.com/go-pdf/fpdf"
)

// StatusKind is the state of the badge a certificate is rendered for.
type StatusKind string

// The states a certificate shows. Every state but StatusValid is stamped across the page.
const (
	StatusValid      StatusKind = ""
	StatusRevoked    StatusKind = "revoked"
	StatusExpired    StatusKind = "expired"
	StatusReplaced   StatusKind = "replaced"
	StatusUnverified StatusKind = "unverified" // a check of the credential failed: nothing on the page is vouched for
)

// Status is the badge's state and one sentence about it in the certificate's language ("This badge was revoked
// on …"), printed under the title.
type Status struct {
	Kind StatusKind
	Text string
}

// Provenance says which facts of a certificate its credential signs.
type Provenance int

// The provenances, after the badge page's rule: what the verified credential does not say is the issuer's record.
const (
	ProvenanceRecords      Provenance = iota // nothing verified: every fact is the issuer's record
	ProvenanceSignedNoName                   // badge, issuer and dates signed; the recipient's name is a record
	ProvenanceSigned                         // the recipient's name too
)

var alert = [3]int{170, 20, 28}

// drawStatus stamps a badge that is no longer valid: a banner under the title with the stamp word and the
// sentence of s (at most two lines), and the word written large and faint across the page, so that no crop or
// print of the certificate passes for a valid one.
func drawStatus(pdf *fpdf.Fpdf, s Status, stamp string) {
	if stamp == "" {
		return
	}
	const x, w, top, lineH = 24.0, pageW - 48, 46.5, 3.9
	pdf.SetFont(familyBody, "", 8.5)
	lines := pdf.SplitText(stamp+" · "+strings.Join(strings.Fields(s.Text), " "), w-6)
	if len(lines) > 2 {
		lines = append(lines[:1], ellipsize(pdf, lines[1]+"…", w-6))
	}
	h := float64(len(lines))*lineH + 1.6
	pdf.SetFillColor(253, 236, 236)
	setDraw(pdf, alert)
	pdf.SetLineWidth(0.4)
	pdf.Rect(x, top, w, h, "FD")
	setText(pdf, alert)
	for i, line := range lines {
		pdf.SetXY(x+3, top+0.8+float64(i)*lineH)
		pdf.CellFormat(w-6, lineH, line, "", 0, "C", false, 0, "")
	}

	pdf.SetAlpha(0.16, "Normal")
	pdf.TransformBegin()
	pdf.TransformRotate(32, pageW/2, pageH/2)
	size := fitSize(pdf, familyHeading, stamp, pageW-30, 84, 30)
	pdf.SetFont(familyHeading, "", size)
	pdf.SetXY(0, pageH/2-size*0.18)
	pdf.CellFormat(pageW, size*0.36, stamp, "", 0, "C", false, 0, "")
	pdf.TransformEnd()
	pdf.SetAlpha(1, "Normal")
}

// drawProvenance writes, small at the foot of the page, which facts the credential signs (at most two lines).
func drawProvenance(pdf *fpdf.Fpdf, note string) {
	const w, y, lineH = 168.0, 275.6, 2.9
	pdf.SetFont(familyBody, "", 6.3)
	setText(pdf, muted)
	lines := pdf.SplitText(note, w)
	if len(lines) > 2 {
		lines = append(lines[:1], ellipsize(pdf, lines[1]+"…", w))
	}
	for i, line := range lines {
		pdf.SetXY((pageW-w)/2, y+float64(i)*lineH)
		pdf.CellFormat(w, lineH, line, "", 0, "C", false, 0, "")
	}
}
