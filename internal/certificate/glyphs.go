package certificate

import (
	"fmt"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/text/unicode/norm"
)

// Replacement is drawn for a character, or an emoji sequence, that the fonts cannot draw: a white square, which
// both embedded fonts have. No embedded font has emoji, and fpdf cannot set a character beyond the Basic
// Multilingual Plane at all, so a replacement keeps the rest of a name readable and shows that something is there.
const Replacement = '□'

// Coverage is the set of characters that every font of a renderer maps to a glyph, read from the fonts' own
// character maps. Only the Basic Multilingual Plane is kept: fpdf's UTF-8 fonts hold widths and glyph ids for
// U+0000–U+FFFF only (a rune past it indexes out of that table and panics), and no embedded font has a glyph past it.
type Coverage struct {
	bmp [0x10000 / 64]uint64
}

// NewCoverage reads the character maps of fonts (TrueType or OpenType bytes) and keeps the characters they all have.
func NewCoverage(fonts ...[]byte) (*Coverage, error) {
	c := &Coverage{}
	for i := range c.bmp {
		c.bmp[i] = ^uint64(0)
	}
	var buf sfnt.Buffer
	for i, b := range fonts {
		f, err := sfnt.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("font %d: %w", i, err)
		}
		for r := range rune(0x10000) {
			if g, err := f.GlyphIndex(&buf, r); err != nil || g == 0 {
				c.bmp[r/64] &^= 1 << (r % 64)
			}
		}
	}
	if !c.Has(Replacement) || !c.Has('…') || !c.Has(' ') {
		return nil, fmt.Errorf("fonts lack %q, … or space", Replacement)
	}
	return c, nil
}

// Has reports whether every font of c draws r.
func (c *Coverage) Has(r rune) bool {
	return r >= 0 && r < 0x10000 && c.bmp[r/64]&(1<<(r%64)) != 0
}

// HasAll reports whether every font of c draws every character of s.
func (c *Coverage) HasAll(s string) bool {
	for _, r := range s {
		if !c.Has(r) {
			return false
		}
	}
	return true
}

// Drawable is s as the fonts of c can draw it, and the one place where text enters a renderer (the PDF certificate
// and the social preview map every string of their input through it before drawing). It never fails and returns
// only characters of c:
//   - the text is composed (NFC), so a letter typed as base + accent uses the font's accented letter;
//   - every space (tab, line and paragraph separators, no-break and ideographic spaces) becomes U+0020;
//   - invisible characters are dropped: controls, format characters (zero-width joiners and spaces, bidirectional
//     controls, soft hyphens, tags), variation selectors, and combining marks the fonts lack;
//   - a character the fonts lack is drawn by its compatibility decomposition when that is drawable, minus the
//     marks (José in a font without é reads Jose, ① reads 1, ﬁ reads fi);
//   - anything else (emoji, other scripts the fonts lack, private-use, unassigned and invalid code points) is one
//     Replacement per character, and an emoji sequence (ZWJ sequences, skin tones, keycaps, flags) one in all.
//
// Hangul, Latin (with the accented letters of Latin-1), Greek, Cyrillic, kana and the common Han characters are in
// the embedded body font.
func (c *Coverage) Drawable(s string) string {
	s = norm.NFC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	var (
		inCluster bool // the last thing written is a Replacement whose emoji sequence may go on
		joined    bool // a zero-width joiner follows it: the next missing character belongs to it too
		halfFlag  bool // it stands for one regional indicator: the next one completes the flag
	)
	for _, r := range s {
		switch {
		case r == '\u200d': // zero-width joiner
			joined = inCluster
			continue
		case inCluster && extendsCluster(r):
			continue
		case inCluster && halfFlag && isRegionalIndicator(r):
			halfFlag = false
			continue
		}
		wasJoined := joined
		joined = false
		switch {
		case unicode.IsSpace(r):
			b.WriteByte(' ')
			inCluster = false
		case unicode.In(r, unicode.Cc, unicode.Cf) || isVariationSelector(r):
			// invisible: nothing to draw
		case unicode.In(r, unicode.Mn, unicode.Me) && !c.Has(r):
			// a mark the fonts lack: the letter it sits on stays
		case c.Has(r) && unicode.IsGraphic(r) && !unicode.Is(unicode.Co, r):
			b.WriteRune(r)
			inCluster = false
		case c.writeDecomposed(&b, r):
			inCluster = false
		case wasJoined:
			// another part of the sequence the Replacement already stands for
		default:
			b.WriteRune(Replacement)
			inCluster, halfFlag = true, isRegionalIndicator(r)
		}
	}
	return b.String()
}

// writeDecomposed writes the compatibility decomposition of r when its letters are drawable (its marks the fonts
// lack are left out) and reports whether it did.
func (c *Coverage) writeDecomposed(b *strings.Builder, r rune) bool {
	d := norm.NFKD.String(string(r))
	if d == string(r) {
		return false
	}
	var out []rune
	for _, x := range d {
		switch {
		case c.Has(x) && unicode.IsGraphic(x):
			out = append(out, x)
		case unicode.In(x, unicode.Mn, unicode.Me):
		default:
			return false
		}
	}
	if len(out) == 0 {
		return false
	}
	for _, x := range out {
		b.WriteRune(x)
	}
	return true
}

// extendsCluster reports whether r continues the character before it (a mark, a variation selector, an emoji
// modifier, a tag of a subdivision flag, the keycap).
func extendsCluster(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me) || isVariationSelector(r) ||
		r >= 0x1f3fb && r <= 0x1f3ff || r >= 0xe0020 && r <= 0xe007f
}

func isVariationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

func isRegionalIndicator(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }

// fontCoverage is what each certificate font draws. Text is mapped onto the body font's (NanumGothic, the larger
// set); a heading is set in NanumSquare when it draws all of it, else in the body font (headingFamily).
type fontCoverage struct{ body, heading *Coverage }

var coverage = sync.OnceValues(func() (fontCoverage, error) {
	body, err := NewCoverage(fontRegular)
	if err != nil {
		return fontCoverage{}, err
	}
	heading, err := NewCoverage(fontBold)
	return fontCoverage{body: body, heading: heading}, err
})

// headingFamily is the heading font for s when it draws all of s, else the body font: NanumSquare lacks the accented
// Latin letters NanumGothic has, and Zoë set in the body face reads better than Zoe in the heading face.
func headingFamily(s string) string {
	if c, err := coverage(); err == nil && c.heading.HasAll(s) {
		return familyHeading
	}
	return familyBody
}
