package sharecard

import (
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// wrap breaks s into at most maxLines lines no wider than w. Lines break between words (Korean too, as the page's
// word-break: keep-all does); a word wider than a line is broken between characters; text past the last line is
// cut and the last line ends with "…".
func wrap(f font.Face, s string, w fixed.Int26_6, maxLines int) []string {
	var lines []string
	cur := ""
	words := strings.Fields(s)
	for i := 0; i < len(words); i++ {
		word := words[i]
		try := word
		if cur != "" {
			try = cur + " " + word
		}
		if font.MeasureString(f, try) <= w {
			cur = try
			continue
		}
		if cur != "" {
			lines, cur = append(lines, cur), ""
			i-- // the word starts the next line
		} else { // one word wider than the line: as much of it as fits, the rest on the next line
			head, rest := fitRunes(f, word, w)
			lines = append(lines, head)
			words[i] = rest
			i--
		}
		if len(lines) == maxLines {
			return ellipsize(f, lines, w)
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	if len(lines) > maxLines {
		return ellipsize(f, lines[:maxLines], w)
	}
	return lines
}

// fitRunes splits word after the most runes that fit in w (at least one, so wrapping always advances).
func fitRunes(f font.Face, word string, w fixed.Int26_6) (string, string) {
	r := []rune(word)
	n := 1
	for n < len(r) && font.MeasureString(f, string(r[:n+1])) <= w {
		n++
	}
	return string(r[:n]), string(r[n:])
}

// ellipsize ends the last line with "…", shortening it until it fits.
func ellipsize(f font.Face, lines []string, w fixed.Int26_6) []string {
	last := []rune(lines[len(lines)-1])
	for len(last) > 0 && font.MeasureString(f, string(last)+"…") > w {
		last = last[:len(last)-1]
	}
	lines[len(lines)-1] = strings.TrimRight(string(last), " ") + "…"
	return lines
}
