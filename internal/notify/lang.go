package notify

import (
	"strings"
	"unicode"

	"github.com/badged/badged/internal/safetext"
)

// LocaleFor picks the language of a recipient's message. The API carries no language per issuance or recipient,
// so it is read from the names the message shows: Korean ("ko") when the recipient's name, the organization's or
// the badge's is written in Hangul, English ("en") otherwise. An English-named recipient of a Korean organization
// thus gets the Korean message, which matches the badge and issuer names it shows.
func LocaleFor(names ...string) string {
	for _, n := range names {
		for _, r := range n {
			if unicode.Is(unicode.Hangul, r) {
				return "ko"
			}
		}
	}
	return "en"
}

// FromDisplayName fills a From display-name pattern (SMTP_FROM_NAME, e.g. "{org} via badged") with the
// organization's name, shown as one plain line (safetext.Display) and capped at 78 characters, so that an
// organization's name cannot break or bloat the header. Quotes, commas and angle brackets stay: the From header
// is built from a net/mail Address, which quotes or encodes (RFC 2047) the name as it needs.
func FromDisplayName(pattern, org string) string {
	name := safetext.Display(strings.ReplaceAll(pattern, "{org}", strings.TrimSpace(org)))
	if r := []rune(name); len(r) > 78 {
		name = string(r[:77]) + "…"
	}
	return name
}
