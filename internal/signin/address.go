package signin

import (
	"net/mail"
	"strings"
	"unicode"
)

// MaxAddress is the longest address accepted (RFC 5321's path limit, less the brackets).
const MaxAddress = 254

// Normalize trims and lower-cases an address and reports whether it is a bare, well-formed addr-spec with a dotted
// domain and no control or space characters; only such addresses are ever counted, stored or mailed.
func Normalize(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || len(s) > MaxAddress {
		return "", false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == unicode.ReplacementChar {
			return "", false
		}
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "", false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	if at < 1 || !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") ||
		strings.HasPrefix(domain, "[") {
		return "", false
	}
	return s, true
}
