// Package sharecard renders a badge's social preview image: the 1200×630 PNG that link previews (Open Graph,
// Twitter cards) and the embed snippet show. It draws the badge image, the badge, recipient and issuer names, and
// the badge's state: a revoked, expired or replaced badge says so across the card, so a preview never shows a
// badge as better than it is. Text is set in the PDF certificate's fonts (NanumGothic, NanumSquare Bold), which
// cover Hangul.
//
// It imports only internal/certificate (its fonts, and the mapping of text onto what they draw).
package sharecard

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"sync"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/badged/badged/internal/certificate"
)

// Width and Height are the card's size: the 1.91:1 image Facebook, LinkedIn and X (summary_large_image) show
// uncropped.
const (
	Width  = 1200
	Height = 630
)

// LayoutVersion changes whenever the drawing changes, so cached cards of an older layout are not served.
const LayoutVersion = 2 // 2: text through certificate.Coverage.Drawable, bold lines the bold font lacks in regular

// Kind is the badge's state as the card shows it.
type Kind string

// The states a card shows; anything but KindValid draws the status band.
const (
	KindValid      Kind = "valid"
	KindRevoked    Kind = "revoked"
	KindExpired    Kind = "expired"
	KindReplaced   Kind = "replaced"
	KindUnverified Kind = "invalid"
	KindTest       Kind = "test"
)

// Input is everything a card shows; the strings are in the card's language already.
type Input struct {
	BadgeImage   []byte `json:"-"` // PNG or JPEG; SVG or empty draws a placeholder (no rasterizer is embedded)
	BadgeName    string
	Recipient    string
	AwardedLabel string // "Awarded to", "수여 대상"
	Issuer       string
	Kind         Kind
	StatusWord   string // "REVOKED", "취소됨": the band's large word (unused for a valid badge)
	StatusText   string // the page's verdict sentence, under the word
	Footer       string // where to check it: the host of the verification page
}

var palette = struct{ bg, ink, muted, brand, line, valid color.RGBA }{
	bg: rgb(0xf5f7fa), ink: rgb(0x1c2430), muted: rgb(0x525c6b), brand: rgb(0x1b3a6b), line: rgb(0xdde2ea), valid: rgb(0x0d5128),
}

// bandColors are the status band's background and text colour per state (the page's verdict colours, darker).
var bandColors = map[Kind][2]color.RGBA{
	KindRevoked: {rgb(0x86161b), rgb(0xffffff)}, KindUnverified: {rgb(0x86161b), rgb(0xffffff)},
	KindExpired: {rgb(0x6b4200), rgb(0xffffff)}, KindTest: {rgb(0x6b4200), rgb(0xffffff)},
	KindReplaced: {rgb(0x1d3f7a), rgb(0xffffff)},
}

func rgb(v uint32) color.RGBA { return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff} }

var (
	fontsOnce           sync.Once
	regularFont, boldFt *opentype.Font
	// regularCoverage and boldCoverage are what each font draws: text is mapped onto the regular font's (the larger
	// set), and a bold line the bold font cannot draw whole is set in the regular one (canvas.lines).
	regularCoverage, boldCoverage *certificate.Coverage
	fontsErr                      error
)

// fonts parses the embedded fonts once, and reads what they both draw; a parsed font is safe for concurrent use,
// its faces are not (one per render).
func fonts() (*opentype.Font, *opentype.Font, error) {
	fontsOnce.Do(func() {
		reg, bold := certificate.Fonts()
		if regularFont, fontsErr = opentype.Parse(reg); fontsErr != nil {
			return
		}
		if boldFt, fontsErr = opentype.Parse(bold); fontsErr != nil {
			return
		}
		if regularCoverage, fontsErr = certificate.NewCoverage(reg); fontsErr != nil {
			return
		}
		boldCoverage, fontsErr = certificate.NewCoverage(bold)
	})
	return regularFont, boldFt, fontsErr
}

// drawable is in with every text as the card's fonts draw it (certificate.Coverage.Drawable over the regular font):
// the one door through which text reaches the drawing, so a character the fonts lack is the Replacement, or its
// plain letters, never a blank box, and an emoji sequence one Replacement.
func (in Input) drawable() Input {
	d := regularCoverage.Drawable
	in.BadgeName, in.Recipient, in.AwardedLabel, in.Issuer = d(in.BadgeName), d(in.Recipient), d(in.AwardedLabel), d(in.Issuer)
	in.StatusWord, in.StatusText, in.Footer = d(in.StatusWord), d(in.StatusText), d(in.Footer)
	return in
}

// Render draws the card of in as a PNG of Width×Height pixels.
func Render(in Input) ([]byte, error) {
	reg, bold, err := fonts()
	if err != nil {
		return nil, fmt.Errorf("share card fonts: %w", err)
	}
	in = in.drawable()
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, Width, Height)), faces: map[faceKey]font.Face{}, reg: reg, bold: bold}
	defer c.close()
	fill(c.img, c.img.Bounds(), palette.bg)
	fill(c.img, image.Rect(0, 0, Width, 14), palette.brand)

	band := 0
	if in.Kind != KindValid {
		band = 150
	}
	// The badge image: a 360 px square on the left, centred in the space above the band.
	side := 360
	top := 14 + (Height-14-band-side)/2
	if band > 0 {
		side = 300
		top = 14 + (Height-14-band-side)/2
	}
	badgeBox := image.Rect(70, top, 70+side, top+side)
	if err := drawBadge(c.img, badgeBox, in.BadgeImage); err != nil {
		drawPlaceholder(c.img, badgeBox)
	}

	// The text column on the right.
	x, right := badgeBox.Max.X+60, Width-70
	w := right - x
	y := 14 + 70
	if band > 0 {
		y = 14 + 50
	}
	y = c.lines(x, y, w, in.Issuer, reg, 30, palette.muted, 1)
	y += 16
	nameSize := 56.0
	if band > 0 {
		nameSize = 48
	}
	y = c.lines(x, y, w, in.BadgeName, bold, nameSize, palette.ink, 3)
	y += 24
	y = c.lines(x, y, w, in.AwardedLabel, reg, 26, palette.muted, 1)
	y += 4
	c.lines(x, y, w, in.Recipient, bold, 40, palette.ink, 2)
	if in.Footer != "" && band == 0 {
		c.lines(x, Height-70, w, in.Footer, reg, 24, palette.valid, 1)
	}

	if band > 0 {
		cols := bandColors[in.Kind]
		if cols == ([2]color.RGBA{}) {
			cols = bandColors[KindUnverified]
		}
		r := image.Rect(0, Height-band, Width, Height)
		fill(c.img, r, cols[0])
		ty := c.lines(70, r.Min.Y+22, Width-140, in.StatusWord, bold, 52, cols[1], 1)
		c.lines(70, ty+4, Width-140, in.StatusText, reg, 26, cols[1], 1)
	}

	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, c.img); err != nil {
		return nil, fmt.Errorf("encode share card: %w", err)
	}
	return buf.Bytes(), nil
}

// drawBadge scales the badge image into box (keeping its aspect, centred). The size is checked before any pixel
// is decoded, as the certificate does: the image is an upload.
func drawBadge(dst *image.RGBA, box image.Rectangle, img []byte) error {
	if len(img) == 0 || len(img) > certificate.MaxImageBytes {
		return fmt.Errorf("no usable badge image")
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return err
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > certificate.MaxImagePixels {
		return fmt.Errorf("badge image of %d×%d pixels", cfg.Width, cfg.Height)
	}
	src, _, err := image.Decode(bytes.NewReader(img))
	if err != nil {
		return err
	}
	bw, bh := box.Dx(), box.Dy()
	w, h := bw, bh
	if cfg.Width*bh > cfg.Height*bw {
		h = max(1, cfg.Height*bw/cfg.Width)
	} else {
		w = max(1, cfg.Width*bh/cfg.Height)
	}
	minPt := image.Pt(box.Min.X+(bw-w)/2, box.Min.Y+(bh-h)/2)
	at := image.Rectangle{Min: minPt, Max: minPt.Add(image.Pt(w, h))}
	draw.CatmullRom.Scale(dst, at, src, src.Bounds(), draw.Over, nil)
	return nil
}

// drawPlaceholder is a framed disc where a badge image cannot be drawn (SVG, missing, unreadable).
func drawPlaceholder(dst *image.RGBA, box image.Rectangle) {
	cx, cy, r := box.Min.X+box.Dx()/2, box.Min.Y+box.Dy()/2, box.Dx()/2
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			d := (x-cx)*(x-cx) + (y-cy)*(y-cy)
			switch {
			case d <= (r-14)*(r-14):
				dst.SetRGBA(x, y, rgb(0xeef2f8))
			case d <= r*r:
				dst.SetRGBA(x, y, palette.brand)
			}
		}
	}
}

func fill(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// canvas is one render: the image and the faces it opened (a face is not safe for concurrent use).
type canvas struct {
	img       *image.RGBA
	faces     map[faceKey]font.Face
	reg, bold *opentype.Font
}

type faceKey struct {
	f    *opentype.Font
	size float64
}

func (c *canvas) face(f *opentype.Font, size float64) font.Face {
	k := faceKey{f, size}
	if fc, ok := c.faces[k]; ok {
		return fc
	}
	fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil { // only for a nonsensical size; the sizes here are constants
		panic(err)
	}
	c.faces[k] = fc
	return fc
}

func (c *canvas) close() {
	for _, f := range c.faces {
		_ = f.Close()
	}
}

// lines sets s from the top y in at most maxLines lines of width w (wrapped between words, the last line
// ellipsized) and returns the y below the last line.
func (c *canvas) lines(x, y, w int, s string, f *opentype.Font, size float64, col color.RGBA, maxLines int) int {
	if s == "" {
		return y
	}
	if f == c.bold && !boldCoverage.HasAll(s) {
		f = c.reg // NanumSquare Bold lacks accented Latin letters (Zoë) that NanumGothic has
	}
	fc := c.face(f, size)
	m := fc.Metrics()
	lineH := (m.Ascent + m.Descent).Ceil() + int(size*0.12)
	d := font.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: fc}
	for _, line := range wrap(fc, s, fixed.I(w), maxLines) {
		d.Dot = fixed.Point26_6{X: fixed.I(x), Y: fixed.I(y) + m.Ascent}
		d.DrawString(line)
		y += lineH
	}
	return y
}
