// Package safetext is the one rule for the characters people's text may hold: what the API and `badged admin`
// accept in names and in longer text, and how text stored before the rule (or from elsewhere) is shown.
//
// Names (a recipient's, an organization's, a program's, a badge's, a skill's) end up in mail headers, page titles,
// sentences such as "Issued to …" and signed credentials. A line break in one splits a header or a line; another
// control character is invisible and makes two names that look alike differ; a bidirectional override
// (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) reverses the text after it, so "Alice‮ tneduts" reads as something
// the issuer never wrote. None of them has a use in a name, so names with them are refused (COM006 naming the
// field), not silently altered: what is signed and mailed is what the client sent.
//
// Longer text (descriptions, criteria, cancel reasons) may hold line breaks and tabs, and bidirectional controls,
// which right-to-left writing uses legitimately; the page shows such text in an isolated block so that they cannot
// reach the text around it. Other control characters are refused there too.
//
// It imports nothing of the module: every package that takes or shows people's text may import it.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Kind is what a piece of text is for.
type Kind int

const (
	// Name is one line of text shown inside other text: names, identifiers.
	Name Kind = iota
	// Multiline is text of its own that may span lines: descriptions, criteria, reasons.
	Multiline
)

// Problem returns why s is not acceptable as kind, for the error body ("must not contain …"), or "" when it is.
// NUL is refused everywhere earlier (Postgres text cannot store it), so it is not special here.
func Problem(s string, k Kind) string {
	n := 0
	for _, r := range s {
		n++
		if r == utf8.RuneError {
			continue // invalid UTF-8 is refused by the body scan, before any field rule
		}
		switch class(r) {
		case lineBreak:
			if k == Name {
				return fmt.Sprintf("must be one line: no line breaks (%s at character %d)", codePoint(r), n)
			}
		case tab:
			if k == Name {
				return fmt.Sprintf("must not contain control characters (%s at character %d)", codePoint(r), n)
			}
		case control:
			return fmt.Sprintf("must not contain control characters (%s at character %d)", codePoint(r), n)
		case bidiControl:
			if k == Name {
				return fmt.Sprintf("must not contain bidirectional override, embedding or isolate characters (%s at character %d)",
					codePoint(r), n)
			}
		}
	}
	return ""
}

// Display returns a name made harmless for showing in a line of other text (a mail header or sentence, a page
// title): line breaks, tabs and other control characters become a space, and bidirectional embedding, override
// and isolate characters are removed. Text accepted under the Name rule comes back unchanged; the function is for
// names stored before the rule existed, or that came from somewhere that did not apply it.
func Display(s string) string {
	if Problem(s, Name) == "" {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch class(r) {
		case lineBreak, tab, control:
			b.WriteByte(' ')
		case bidiControl:
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

type charClass int

const (
	plain       charClass = iota
	lineBreak             // LF, CR, LINE SEPARATOR, PARAGRAPH SEPARATOR
	tab                   // HT
	control               // every other C0 or C1 control character (VT, FF and NEL included), and DEL
	bidiControl           // U+202A–U+202E (embeddings, overrides, PDF), U+2066–U+2069 (isolates, PDI)
)

func class(r rune) charClass {
	switch {
	case r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029:
		return lineBreak
	case r == '\t':
		return tab
	case r < 0x20 || r >= 0x7F && r <= 0x9F:
		return control
	case r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069:
		return bidiControl
	}
	return plain
}

// codePoint names a character the way the error message shows it: U+000A.
func codePoint(r rune) string { return fmt.Sprintf("U+%04X", r) }
