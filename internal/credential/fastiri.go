package credential

import (
	"strings"
	"sync"

	"github.com/piprate/json-gold/ld"
)

// iriTerm returns the N-Quads term of an IRI the fast path is about to write, or false when json-gold's path
// would treat the IRI in any other way than writing it as is: the caller then falls back to json-gold.
//
// json-gold's path accepts an IRI when checkExpanded's absoluteIRI pattern matches, url.Parse succeeds with a
// scheme (otherwise the subject, predicate or object is dropped), and, for http:// and https:// IRIs, ld.IsURL (a
// large regular expression) holds (otherwise the quad is dropped). The ordinary IRIs of a credential are accepted
// here without running url.Parse or the regular expression; everything else takes the exact, slow check.
func iriTerm(s string) (string, bool) {
	switch fastIRI(s) {
	case iriOK:
		return "<" + s + ">", true
	case iriUnsure:
		if exactIRIValid(s) {
			return "<" + escapeIRI(s) + ">", true
		}
	}
	return "", false
}

type iriVerdict int

const (
	iriBad    iriVerdict = iota // no absolute IRI at all
	iriOK                       // valid, and needs no escaping in N-Quads
	iriUnsure                   // run the exact check
)

// fastIRI recognizes IRIs whose validity follows from their shape. An http(s) IRI is "https://" + host + rest:
// when rest is empty or starts with / ? or #, holds no whitespace, control character or %, and the host holds
// only letters, digits, dots and hyphens (then perhaps a port), then IsURL(iri) holds exactly when
// IsURL("https://" + host) does (the
// pattern ends in an optional path group [/?#]\S*, and url.Parse can only fail on % escapes or control
// characters), which is remembered per host.
func fastIRI(s string) iriVerdict {
	if len(s) <= 3 || len(s) >= 2083 { // IsURL's bounds (it counts runes; bytes ≥ runes)
		return iriUnsure
	}
	colon := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			colon = i
			break
		}
		if !(isAlpha(c) || (i > 0 && (isDigit(c) || c == '+' || c == '.' || c == '-'))) {
			return iriBad
		}
	}
	if colon <= 0 {
		return iriBad
	}
	for i := colon + 1; i < len(s); i++ {
		if iriSpecial[s[i]] {
			return iriUnsure
		}
	}
	rest := s[colon+1:]
	if !strings.HasPrefix(rest, "//") {
		return iriOK // an opaque IRI (urn:, did:, mailto:, https:x): url.Parse accepts it, IsURL is not asked
	}
	scheme := s[:colon]
	if scheme != "http" && scheme != "https" {
		return iriUnsure
	}
	host := rest[2:]
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	prefix := s[:colon+3+len(host)] // scheme://host[:port], what hostValid remembers
	if i := strings.IndexByte(host, ':'); i >= 0 {
		// A port of 1 to 5 digits (IsURL's port group, which precedes the path group): a deployment on
		// http://127.0.0.1:8080 signs every IRI with it.
		port := host[i+1:]
		if port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
			return iriUnsure
		}
		host = host[:i]
	}
	if host == "" || host[0] == '.' {
		return iriUnsure
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !(isAlpha(c) || isDigit(c) || c == '.' || c == '-') {
			return iriUnsure
		}
	}
	if !hostValid(prefix) {
		return iriUnsure
	}
	return iriOK
}

// exactIRIValid is what json-gold's path requires of an IRI, run in full.
func exactIRIValid(s string) bool {
	if !absoluteIRI.MatchString(s) || ld.IsRelativeIri(s) {
		return false
	}
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		return ld.IsURL(s)
	}
	return true
}

// hostCache remembers IsURL of "scheme://host". A service signs for a handful of hosts; the cap keeps hostile
// input from growing it (past the cap, hosts are checked every time).
var hostCache = struct {
	sync.RWMutex
	m map[string]bool
}{m: map[string]bool{}}

const hostCacheMax = 4096

func hostValid(prefix string) bool {
	hostCache.RLock()
	ok, seen := hostCache.m[prefix]
	hostCache.RUnlock()
	if seen {
		return ok
	}
	ok = ld.IsURL(prefix)
	hostCache.Lock()
	if len(hostCache.m) < hostCacheMax {
		hostCache.m[prefix] = ok
	}
	hostCache.Unlock()
	return ok
}

// iriSpecial marks the bytes that send an IRI to the exact check: what url.Parse refuses (control characters)
// or decodes (%), what IsURL's path pattern refuses (whitespace), and what N-Quads escapes.
var iriSpecial = func() (t [256]bool) {
	for c := range 0x21 {
		t[c] = true
	}
	for _, c := range []byte("\x7f%<>\"{}|^`\\") {
		t[c] = true
	}
	return t
}()

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
