package certificate

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// hostileNames are names no embedded font can draw whole: emoji and emoji sequences, characters past the Basic
// Multilingual Plane, unassigned, private-use and invalid code points, scripts the fonts lack, controls and format
// characters. Each keeps a readable part, which the rendering must show.
var hostileNames = []struct{ name, readable string }{
	{"김하늘 🎓", "김하늘"},
	{"🎓", ""},
	{"Jane 👩‍🎓 Doe", "Jane"},
	{"Kim 👍🏽 🇰🇷 1️⃣", "Kim"},
	{"𝐁𝐨𝐥𝐝 𐀀 Park", "Park"},
	{"Lee \u0378\uffff\ue000\U0010ffff", "Lee"},
	{"Choi\x00\x07\x1b[31m\u0085\u200b\u202e\u2066 Minji", "Minji"},
	{"Dana אבי عمر", "Dana"},
	{"Zoë Ñuñez", "Zoë"},
	{"Yoon \xff\xfe", "Yoon"},
}

func TestDrawable(t *testing.T) {
	c, err := coverage()
	require.NoError(t, err)
	for in, want := range map[string]string{
		"김하늘 🎓":        "김하늘 □",
		"👩\u200d🎓 Kim": "□ Kim", // a ZWJ sequence is one replacement
		"👍🏽!":          "□!",    // and a skin tone
		"🇰🇷🇯🇵":         "□□",    // a flag is two regional indicators
		"🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f": "□", // a subdivision flag
		"1️⃣":                    "1", // a keycap keeps its digit
		"José":                   "José",
		"Jose\u0301":             "José", // composed first
		"Ā ﬁ ①":                  "A fi ①",
		"\U00010000 \U0001d401":  "□ B",   // past the BMP: replaced, or its compatibility letter
		"\u0378|\uffff|\ue000":   "□|□|□", // unassigned, noncharacter, private use
		"a\x00b\x07c\x7f\u0085":  "abc ",
		"a\tb\nc\r\nd\u2028e":    "a b c  d e",
		"a\u202eb\u200bc\u00add": "abcd",
		"a\xffb":                 "a□b",
		"אבי":                    "□□□",
		"Ελένη Иван 山田 はな Straße": "Ελενη Иван 山田 はな Straße", // NanumGothic has no Greek tonos
	} {
		got := c.body.Drawable(in)
		require.Equal(t, want, got, "%q", in)
		requireDrawable(t, c.body, got)
	}
	for _, l := range labelSets {
		for _, s := range []string{l.title, l.subtitle, l.certifies, l.issuer, l.issuedOn, l.expiresOn, l.noExpiry,
			l.serial, l.scanVerify, l.criteria, l.evidenceSigned, l.evidenceRecords} {
			require.True(t, c.body.HasAll(s), "label %q", s)
		}
		for _, s := range l.stamps {
			require.True(t, c.heading.HasAll(s), "stamp %q", s)
		}
		for _, s := range l.provenance {
			require.True(t, c.body.HasAll(s), "provenance %q", s)
		}
	}
	require.Equal(t, familyBody, headingFamily("Zoë"), "NanumSquare lacks ë")
	require.Equal(t, familyHeading, headingFamily("김하늘 Zoe"))
}

// requireDrawable: s is valid UTF-8 of characters the fonts draw, all in the BMP (what fpdf can hold).
func requireDrawable(tb testing.TB, c *Coverage, s string) {
	tb.Helper()
	require.True(tb, utf8.ValidString(s), "%q", s)
	for _, r := range s {
		require.True(tb, c.Has(r) && r < 0x10000, "%q holds %U", s, r)
	}
}

// FuzzDrawable: whatever the input, Drawable returns only characters the font draws, and keeps drawable text as it is.
func FuzzDrawable(f *testing.F) {
	for _, h := range hostileNames {
		f.Add(h.name)
	}
	f.Add("Go 프로그래밍 기초 과정 수료")
	c, err := coverage()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, s string) {
		got := c.body.Drawable(s)
		requireDrawable(t, c.body, got)
		require.Equal(t, got, c.body.Drawable(got), "drawable text stays as it is")
	})
}

// TestRender_HostileText: a hostile text in any field of the certificate renders (no panic, no error), the PDF
// still embeds its fonts, subset, its text shows the readable part and the replacement, and no character past the
// BMP reaches the PDF. Names are one line each, so each hostile name is rendered on its own there; the wrapped
// texts take them all at once.
func TestRender_HostileText(t *testing.T) {
	var all []string
	for _, h := range hostileNames {
		all = append(all, h.name)
	}
	joined := strings.Join(all, " ")
	render := func(t *testing.T, in Input) string {
		t.Helper()
		pdf, err := Render(in)
		require.NoError(t, err)
		require.Less(t, len(pdf), 400<<10, "fonts are subset")
		text := oneLine(pdfText(t, pdf))
		for _, r := range text {
			require.Less(t, r, rune(0x10000), "%U reached the PDF", r)
		}
		return text
	}
	names := map[string]func(*Input, string){
		"recipient":           func(in *Input, s string) { in.RecipientName = s },
		"badge":               func(in *Input, s string) { in.BadgeName = s },
		"issuer":              func(in *Input, s string) { in.IssuerName = s },
		"badge without image": func(in *Input, s string) { in.BadgeName, in.BadgeImage = s, nil }, // the placeholder's text
	}
	for field, set := range names {
		t.Run(field, func(t *testing.T) {
			for _, h := range hostileNames {
				in := koreanInput(t)
				set(&in, h.name)
				text := render(t, in)
				if c, _ := coverage(); strings.ContainsRune(c.body.Drawable(h.name), Replacement) {
					require.Contains(t, text, "□", "%q", h.name)
				}
				require.Contains(t, text, h.readable, "%q", h.name)
			}
		})
	}
	texts := map[string]func(*Input, string){
		"criteria":         func(in *Input, s string) { in.Criteria = []string{s, "두 번째 " + s} },
		"evidence":         func(in *Input, s string) { in.Evidence = []Evidence{{Name: s, URL: "https://example.com/" + s}} },
		"status":           func(in *Input, s string) { in.Status = Status{Kind: StatusRevoked, Text: "취소 사유: " + s} },
		"dates and serial": func(in *Input, s string) { in.IssuedOn, in.ExpiresOn, in.SerialNumber = s, s, s },
		"verify URL":       func(in *Input, s string) { in.VerifyURL = testURL + "?" + s },
	}
	for field, set := range texts {
		t.Run(field, func(t *testing.T) {
			in := koreanInput(t)
			set(&in, joined)
			text := render(t, in)
			require.Contains(t, text, "□")
			require.Contains(t, text, "김하늘", "the text's first name")
		})
	}
	t.Run("fonts", func(t *testing.T) {
		in := koreanInput(t)
		in.RecipientName, in.IssuerName = "김하늘 🎓 Zoë", "🎓"
		pdf, err := Render(in)
		require.NoError(t, err)
		fonts := pdfFonts(t, pdf)
		require.Regexp(t, `(?m)^utf8nanumgothic\s+CID TrueType\s+Identity-H\s+yes`, fonts, "body font embedded")
		require.Regexp(t, `(?m)^utf8nanumsquare\s+CID TrueType\s+Identity-H\s+yes`, fonts, "heading font embedded")
		text := pdfText(t, pdf)
		require.Contains(t, text, "김하늘 □ Zoë", "set in the body font, which has ë")
	})
	t.Run("names only of what no font draws", func(t *testing.T) {
		in := koreanInput(t)
		in.RecipientName, in.BadgeName, in.IssuerName = "🎓🎓", "\u200b", "\U0001f3eb"
		require.Contains(t, render(t, in), "□")
	})
}

// BenchmarkDrawable maps a Korean name with an emoji onto the fonts (done for every text of every render).
func BenchmarkDrawable(b *testing.B) {
	c, err := coverage()
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		_ = c.body.Drawable("김하늘 👩‍🎓 Zoë Go 프로그래밍 기초 과정 수료")
	}
}

// BenchmarkNewCoverage reads both fonts' character maps (once per process).
func BenchmarkNewCoverage(b *testing.B) {
	for b.Loop() {
		if _, err := NewCoverage(fontRegular, fontBold); err != nil {
			b.Fatal(err)
		}
	}
}
