// Package certificate renders the PDF certificate of an issued badge: an A4 page with the badge image, the recipient,
// badge and issuer names, the dates, the serial number and a QR code of the verification URL, the badge's state
// when it is no longer valid, and which of its facts the credential signs. Hangul renders with an embedded
// NanumGothic font.
//
// It imports nothing of the module: the caller hands it the facts, already read and checked.
package certificate

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-pdf/fpdf"
)

// Input is what a certificate shows. Dates are already formatted for display.
type Input struct {
	BadgeName     string // required
	BadgeImage    []byte // PNG or JPEG; an SVG or an empty image is drawn as a frame with the badge name
	RecipientName string // required
	IssuerName    string // required
	IssuedOn      string // required
	ExpiresOn     string // empty: the badge does not expire
	SerialNumber  string
	VerifyURL     string // required; encoded in the QR code
	// SignatureImage is the badge's signature (PNG or JPEG), drawn above the issuer's name; empty or SVG: none.
	SignatureImage []byte
	Criteria       []string // the badge's criteria narratives, shown under the badge name (the first lines that fit)
	Lang           Lang     // labels' language; empty means LangKO
	// Status is the badge's state at rendering: a certificate of a badge that is no longer valid says so across
	// its face. The zero value is a valid badge.
	Status Status
	// Provenance says which of the facts above the credential signs; the zero value says none do (they are the
	// issuer's records).
	Provenance Provenance
	// Evidence is the award's OB 3.0 evidence, shown under the criteria; EvidenceSigned says the credential signs
	// it (else it is the issuer's records).
	Evidence       []Evidence
	EvidenceSigned bool
}

// Evidence is one evidence item as the certificate names it.
type Evidence struct{ Name, URL string }

// LayoutVersion names the drawing of Render; it changes whenever the same Input would draw differently, so a
// cache keyed by it never serves a certificate of an older layout.
const LayoutVersion = 3 // 3: text through Coverage.Drawable, headings the heading font lacks in the body font

// ErrInvalidInput is wrapped in the error Render returns when a required field is missing or Lang is unknown.
var ErrInvalidInput = errors.New("invalid certificate input")

// Page geometry (mm) and palette.
const (
	pageW, pageH = 210.0, 297.0
	contentW     = 150.0 // width of the centred text column
	badgeBox     = 62.0  // the badge image fits in a square of this side
	qrSize       = 34.0
	qrY          = 198.0 // top of the QR code; the details list starts level with it
)

var (
	navy  = [3]int{22, 44, 88}
	gold  = [3]int{176, 141, 72}
	ink   = [3]int{40, 40, 40}
	muted = [3]int{110, 110, 110}
)

// Render returns the certificate as a one-page A4 PDF.
func Render(in Input) ([]byte, error) {
	lang := in.Lang
	if lang == "" {
		lang = LangKO
	}
	l, ok := labelSets[lang]
	if !ok {
		return nil, fmt.Errorf("%w: language %q", ErrInvalidInput, in.Lang)
	}
	for name, v := range map[string]string{"badge name": in.BadgeName, "recipient name": in.RecipientName,
		"issuer name": in.IssuerName, "issue date": in.IssuedOn, "verification URL": in.VerifyURL} {
		if strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("%w: %s is empty", ErrInvalidInput, name)
		}
	}
	stamp, ok := l.stamps[in.Status.Kind]
	if !ok {
		return nil, fmt.Errorf("%w: status %q", ErrInvalidInput, in.Status.Kind)
	}
	note, ok := l.provenance[in.Provenance]
	if !ok {
		return nil, fmt.Errorf("%w: provenance %d", ErrInvalidInput, in.Provenance)
	}
	cov, err := coverage()
	if err != nil {
		return nil, fmt.Errorf("certificate fonts: %w", err)
	}
	qrContent := in.VerifyURL
	in = in.drawable(cov.body)

	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetMargins(0, 0, 0)
	pdf.AddUTF8FontFromBytes(familyBody, "", fontRegular)
	pdf.AddUTF8FontFromBytes(familyHeading, "", fontBold)
	title := l.title + " - " + in.RecipientName
	if stamp != "" {
		title += " (" + stamp + ")"
	}
	pdf.SetTitle(title, true)
	pdf.SetAuthor(in.IssuerName, true)
	pdf.SetSubject(in.BadgeName, true)
	pdf.SetCreator("badged", true)
	pdf.SetLang(string(lang))
	pdf.AddPage()

	drawFrame(pdf)
	y := drawHeader(pdf, l, stamp == "")
	if err := drawBadge(pdf, in, y); err != nil {
		return nil, err
	}
	drawStatus(pdf, in.Status, stamp)
	y = drawNames(pdf, in, l, y+badgeBox+12)
	y = drawCriteria(pdf, in, l, y+3)
	drawEvidence(pdf, in, l, y+1)
	drawDetails(pdf, in, l)
	if err := drawQR(pdf, qrContent, pageW-28-qrSize, qrY, qrSize); err != nil {
		return nil, err
	}
	drawQRCaption(pdf, in, l)
	if err := drawSignature(pdf, in.SignatureImage); err != nil {
		return nil, err
	}
	drawIssuerSeal(pdf, in, l)
	drawProvenance(pdf, note)

	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("render pdf: %w", err)
	}
	return buf.Bytes(), nil
}

// drawable is in with every text as the fonts draw it (Coverage.Drawable), the one door through which text reaches
// fpdf: no character past U+FFFF, which its UTF-8 font code cannot hold, and none the fonts lack. A required name
// of which nothing is drawable (all emoji, say) is one Replacement rather than a blank. The QR code keeps the URL
// as given: it draws bytes, not glyphs.
func (in Input) drawable(c *Coverage) Input {
	d := c.Drawable
	named := func(s string) string {
		if s = d(s); strings.TrimSpace(s) == "" {
			return string(Replacement)
		}
		return s
	}
	in.BadgeName, in.RecipientName, in.IssuerName = named(in.BadgeName), named(in.RecipientName), named(in.IssuerName)
	in.IssuedOn, in.ExpiresOn, in.SerialNumber = named(in.IssuedOn), d(in.ExpiresOn), d(in.SerialNumber)
	in.VerifyURL = named(in.VerifyURL) // its caption under the QR code
	in.Status.Text = d(in.Status.Text)
	in.Criteria = slices.Clone(in.Criteria)
	for i := range in.Criteria {
		in.Criteria[i] = d(in.Criteria[i])
	}
	in.Evidence = slices.Clone(in.Evidence)
	for i, e := range in.Evidence {
		in.Evidence[i] = Evidence{Name: d(e.Name), URL: d(e.URL)}
	}
	return in
}

// drawFrame draws a navy outer border with a thin gold inner border.
func drawFrame(pdf *fpdf.Fpdf) {
	setDraw(pdf, navy)
	pdf.SetLineWidth(1.4)
	pdf.Rect(10, 10, pageW-20, pageH-20, "D")
	setDraw(pdf, gold)
	pdf.SetLineWidth(0.4)
	pdf.Rect(14, 14, pageW-28, pageH-28, "D")
}

// drawHeader writes the title block and returns the y where the badge image starts. The gold rule under it is
// left out when the status banner takes its place.
func drawHeader(pdf *fpdf.Fpdf, l labels, rule bool) float64 {
	text(pdf, familyHeading, 26, navy, 30, l.title)
	text(pdf, familyBody, 9.5, gold, 42, l.subtitle)
	if rule {
		setDraw(pdf, gold)
		pdf.SetLineWidth(0.6)
		pdf.Line(pageW/2-22, 49, pageW/2+22, 49)
	}
	return 56
}

// drawBadge places the badge image, scaled to fit the badge box and centred, or a framed placeholder with the badge
// name when the image is an SVG (no rasterizer is embedded) or missing.
func drawBadge(pdf *fpdf.Fpdf, in Input, y float64) error {
	x := (pageW - badgeBox) / 2
	if len(in.BadgeImage) == 0 || isSVG(in.BadgeImage) {
		setDraw(pdf, gold)
		pdf.SetLineWidth(0.8)
		pdf.Circle(pageW/2, y+badgeBox/2, badgeBox/2, "D")
		pdf.SetLineWidth(0.3)
		pdf.Circle(pageW/2, y+badgeBox/2, badgeBox/2-3, "D")
		pdf.SetFont(headingFamily(in.BadgeName), "", 13)
		setText(pdf, navy)
		lines := pdf.SplitText(in.BadgeName, badgeBox-16)
		if len(lines) > 4 {
			lines = lines[:4]
		}
		ty := y + badgeBox/2 - float64(len(lines))*6/2
		for i, line := range lines {
			pdf.SetXY(x, ty+float64(i)*6)
			pdf.CellFormat(badgeBox, 6, line, "", 0, "C", false, 0, "")
		}
		return nil
	}
	img, w, h, err := normalizeImage(in.BadgeImage)
	if err != nil {
		return err
	}
	pdf.RegisterImageOptionsReader("badge", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(img))
	dw, dh := badgeBox, badgeBox
	if w > h {
		dh = badgeBox * float64(h) / float64(w)
	} else {
		dw = badgeBox * float64(w) / float64(h)
	}
	pdf.ImageOptions("badge", (pageW-dw)/2, y+(badgeBox-dh)/2, dw, dh, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	return nil
}

// drawNames writes the recipient name, the certifying sentence and the badge name from y down, and returns the y
// below them.
func drawNames(pdf *fpdf.Fpdf, in Input, l labels, y float64) float64 {
	family := headingFamily(in.RecipientName)
	size := fitSize(pdf, family, in.RecipientName, contentW, 30, 16)
	text(pdf, family, size, ink, y, in.RecipientName)
	setDraw(pdf, gold)
	pdf.SetLineWidth(0.4)
	pdf.Line(pageW/2-55, y+15, pageW/2+55, y+15)

	y += 21
	pdf.SetFont(familyBody, "", 11.5)
	setText(pdf, muted)
	pdf.SetXY((pageW-contentW)/2, y)
	pdf.MultiCell(contentW, 6, l.certifies, "", "C", false)

	y = pdf.GetY() + 5
	pdf.SetFont(headingFamily(in.BadgeName), "", 19)
	setText(pdf, navy)
	lines := pdf.SplitText(in.BadgeName, contentW)
	if len(lines) > 3 {
		lines = append(lines[:2], lines[2]+"…")
	}
	for _, line := range lines {
		pdf.SetXY((pageW-contentW)/2, y)
		pdf.CellFormat(contentW, 9, line, "", 0, "C", false, 0, "")
		y += 9
	}
	return y
}

// drawDetails writes the issuer, dates and serial number as a label/value list in the lower left.
func drawDetails(pdf *fpdf.Fpdf, in Input, l labels) {
	expires := in.ExpiresOn
	if strings.TrimSpace(expires) == "" {
		expires = l.noExpiry
	}
	rows := [][2]string{{l.issuer, in.IssuerName}, {l.issuedOn, in.IssuedOn}, {l.expiresOn, expires}}
	if in.SerialNumber != "" {
		rows = append(rows, [2]string{l.serial, in.SerialNumber})
	}
	const x, labelW, valueW = 30.0, 30.0, 92.0
	y := qrY + 1
	for _, r := range rows {
		pdf.SetFont(familyBody, "", 9)
		setText(pdf, muted)
		pdf.SetXY(x, y)
		pdf.CellFormat(labelW, 7, r[0], "", 0, "L", false, 0, "")
		pdf.SetFont(familyBody, "", 11)
		setText(pdf, ink)
		pdf.SetXY(x+labelW, y)
		pdf.CellFormat(valueW, 7, ellipsize(pdf, r[1], valueW), "", 0, "L", false, 0, "")
		setDraw(pdf, [3]int{220, 220, 220})
		pdf.SetLineWidth(0.2)
		pdf.Line(x, y+7.5, x+labelW+valueW, y+7.5)
		y += 9
	}
}

// drawQRCaption writes the scan hint and the verification URL under the QR code.
func drawQRCaption(pdf *fpdf.Fpdf, in Input, l labels) {
	const w = 50.0
	x := pageW - 28 - qrSize/2 - w/2
	pdf.SetFont(familyBody, "", 7)
	setText(pdf, muted)
	pdf.SetXY(x, qrY+qrSize+2)
	pdf.MultiCell(w, 3.6, l.scanVerify, "", "C", false)
	pdf.SetFont(familyBody, "", 6)
	pdf.SetX(x)
	url := in.VerifyURL
	if r := []rune(url); len(r) > 160 {
		url = string(r[:157]) + "..."
	}
	pdf.MultiCell(w, 3, url, "", "C", false)
}

// drawIssuerSeal signs the page with the issuer's name over a gold rule at the bottom centre.
func drawIssuerSeal(pdf *fpdf.Fpdf, in Input, l labels) {
	const y = 259.0
	family := headingFamily(in.IssuerName)
	size := fitSize(pdf, family, in.IssuerName, contentW, 15, 9)
	text(pdf, family, size, navy, y, in.IssuerName)
	setDraw(pdf, gold)
	pdf.SetLineWidth(0.4)
	pdf.Line(pageW/2-40, y+9, pageW/2+40, y+9)
	text(pdf, familyBody, 8, muted, y+11, l.issuer)
}

// text writes s centred on the page in one line at y.
func text(pdf *fpdf.Fpdf, family string, size float64, c [3]int, y float64, s string) {
	pdf.SetFont(family, "", size)
	setText(pdf, c)
	pdf.SetXY(0, y)
	pdf.CellFormat(pageW, size*0.45, s, "", 0, "C", false, 0, "")
}

// fitSize returns the largest font size from max down to min (in 1 pt steps) at which s fits in width w.
func fitSize(pdf *fpdf.Fpdf, family, s string, w, max, min float64) float64 {
	size := max
	for ; size > min; size-- {
		pdf.SetFont(family, "", size)
		if pdf.GetStringWidth(s) <= w {
			break
		}
	}
	return size
}

// ellipsize shortens s with "…" until it fits in width w at the current font.
func ellipsize(pdf *fpdf.Fpdf, s string, w float64) string {
	if pdf.GetStringWidth(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && pdf.GetStringWidth(string(r)+"…") > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

func setDraw(pdf *fpdf.Fpdf, c [3]int) { pdf.SetDrawColor(c[0], c[1], c[2]) }
func setText(pdf *fpdf.Fpdf, c [3]int) { pdf.SetTextColor(c[0], c[1], c[2]) }
