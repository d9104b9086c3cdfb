package certificate

import _ "embed"

// The fonts are OFL 1.1 (see fonts/OFL.txt and fonts/SOURCE.md). NanumGothic covers all 11,172 modern Hangul
// syllables for body text; NanumSquare Bold (a fifth of NanumGothic Bold's size, same coverage) sets the headings.
// fpdf embeds only the glyphs a certificate uses, so each PDF stays small.
var (
	//go:embed fonts/NanumGothic.ttf
	fontRegular []byte
	//go:embed fonts/NanumSquareB.ttf
	fontBold []byte
)

// Font family names registered in each document.
const (
	familyBody    = "NanumGothic"
	familyHeading = "NanumSquare"
)

// Fonts returns the certificate's fonts (regular body, bold headings), so other renderings of a badge (the social
// preview image) set Hangul with the same faces instead of shipping fonts of their own.
func Fonts() (regular, bold []byte) { return fontRegular, fontBold }
