package media

import (
	"strings"
	"unicode/utf8"
)

// cssSafe reports whether CSS text refers to nothing outside the document: every url() is a fragment (url(#id)),
// and there is no @import or function that takes a URL as a plain string (image(), image-set(), src()). It is
// applied to style attributes, <style> elements and every other attribute value, since presentation attributes are
// CSS too (fill="url(https://…)").
//
// It reads the text as one run of characters (cssSkeleton), without telling code from strings and comments: a
// reference quoted in a string or a comment is refused as if it were code. A browser cannot see more than this
// reading does, since a comment can only end a name, never join one (ur/**/l( is not url(), and neither does the
// skeleton contain it), and the price is a harmless style dropped in rare cases (content: "url(x)").
func cssSafe(s string) bool {
	if !strings.ContainsAny(s, `(@\`) {
		return true // no function, at-rule or escape: nothing to find (most attribute values)
	}
	k := cssSkeleton(s)
	for _, ref := range []string{"@import", "image(", "image-set(", "src("} { // -webkit-image-set( included
		if strings.Contains(k, ref) {
			return false
		}
	}
	for {
		i := strings.Index(k, "url(")
		if i < 0 {
			return true
		}
		k = k[i+len("url("):]
		// CSS skips whitespace before the argument, the URL parser C0 controls and spaces at its start.
		arg := strings.TrimLeftFunc(k, func(r rune) bool { return r <= ' ' || r == '"' || r == '\'' })
		if !strings.HasPrefix(arg, "#") {
			return false
		}
	}
}

// cssSkeleton lowercases ASCII letters and decodes CSS escapes (a backslash and 1 to 6 hex digits with one optional
// whitespace, or a backslash and any other character but a newline), so that u\72l( reads url(. An escape that
// decodes to a quote, a space, a control character or '#' becomes U+FFFD instead: escaped, those are part of a
// URL, not delimiters, and must not make a URL look like a fragment.
func cssSkeleton(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' || i+1 >= len(s) || s[i+1] == '\n' {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			i++
			continue
		}
		i++
		var r rune
		if n := hexPrefix(s[i:]); n > 0 {
			r = hexRune(s[i : i+n])
			i += n
			if i < len(s) && strings.IndexByte(" \t\n\r\f", s[i]) >= 0 {
				i++
			}
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(s[i:])
			i += size
		}
		switch {
		case r <= ' ' || r == '"' || r == '\'' || r == '#':
			r = utf8.RuneError
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hexPrefix is the number of hex digits (at most 6) that s starts with.
func hexPrefix(s string) int {
	n := 0
	for n < len(s) && n < 6 && strings.IndexByte("0123456789abcdefABCDEF", s[n]) >= 0 {
		n++
	}
	return n
}

// hexRune decodes the code point of a CSS escape; NUL, surrogates and values past Unicode are U+FFFD, as in CSS.
func hexRune(hex string) rune {
	var v rune
	for i := 0; i < len(hex); i++ {
		c := rune(hex[i] | 0x20) // lowercase letters; digits are unchanged by the bit
		if c <= '9' {
			v = v*16 + c - '0'
		} else {
			v = v*16 + c - 'a' + 10
		}
	}
	if v == 0 || (v >= 0xd800 && v <= 0xdfff) || v > utf8.MaxRune {
		return utf8.RuneError
	}
	return v
}
