package api

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// bodyProblem is what scanBody finds wrong in a body that is valid JSON.
type bodyProblem int

const (
	bodyOK bodyProblem = iota
	// bodyDuplicateKey: a key appears twice in one object. encoding/json keeps the last of two equal keys
	// silently, so a body whose first "name" was checked by a proxy or a log reader could carry a second one that
	// we act on; such a body is refused instead. Keys are compared after unescaping ("a" and "\u0061" are one key).
	bodyDuplicateKey
	// bodyInvalidText: a string holds bytes that are not UTF-8, or an escaped lone surrogate ("\ud800").
	// encoding/json would turn either into U+FFFD without a word, storing something the client never sent.
	bodyInvalidText
	// bodyNUL: a string holds U+0000, which Postgres text cannot store (SQLSTATE 22021, a 500 before this check).
	bodyNUL
)

// field is the error.errors entry of a problem at path: COM002 for a malformed body, COM006 for a NUL, which is
// well-formed JSON that breaks a field rule.
func (p bodyProblem) field(path string) fieldError {
	switch p {
	case bodyDuplicateKey:
		return fieldError{Field: path, Message: "appears more than once", format: true}
	case bodyInvalidText:
		return fieldError{Field: path, Message: textInvalidMsg, format: true}
	}
	return fieldError{Field: path, Message: textNULMsg}
}

// The messages of the two text problems, shared with the query, path and header checks (guard.go).
const (
	textInvalidMsg = "must be valid UTF-8 text (no invalid bytes or lone surrogate escapes)"
	textNULMsg     = "must not contain the NUL character (U+0000)"
)

// scanBody reports the first duplicate key or bad string of body, with its path from the top
// ("recipients[3].email", "badgeIds[1]"). It is the one place every string of every JSON request is checked, keys
// and values, whichever field later reads them, so no handler can store or compare a NUL or a non-UTF-8 string.
//
// body must be valid JSON (decodeBody has parsed it), which lets this be a plain byte scan: it runs on every
// request body, and for 10,000 recipients (0.9 MB) json.Decoder.Token took 31.6 ms, six times the decode itself,
// where a byte scan takes a few ms (BenchmarkScanBody10k). FuzzScanBody holds it to the token stream's answer.
func scanBody(body []byte) (bodyProblem, string) {
	var stack []jsonFrame
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '{':
			stack = append(stack, jsonFrame{object: true, expectKey: true})
		case '[':
			stack = append(stack, jsonFrame{})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if f := &stack[len(stack)-1]; f.object {
				f.expectKey = true
			} else {
				f.index++
			}
		case '"':
			end, plain := stringEnd(body, i)
			n := len(stack)
			isKey := n > 0 && stack[n-1].object && stack[n-1].expectKey
			if isKey {
				f := &stack[n-1]
				f.key, f.expectKey = unquote(body[i:end+1], plain), false
			}
			if !plain {
				if p := stringProblem(body[i+1 : end]); p != bodyOK {
					return p, framesPath(stack)
				}
			}
			if isKey && stack[n-1].addKey() {
				return bodyDuplicateKey, framesPath(stack)
			}
			i = end
		}
	}
	return bodyOK, ""
}

// jsonFrame is one open container of scanBody's walk.
type jsonFrame struct {
	object    bool
	keys      []string            // object: the keys read so far, while there are few
	keySet    map[string]struct{} // object: the keys read so far, once there are many
	key       string              // object: the last key read
	expectKey bool                // object: the next string is a key
	index     int                 // array: the index of the current element
}

// smallObject is the number of keys an object's frame compares in a list before it uses a map: most objects of a
// request (a recipient: 3–6 keys) never allocate one.
const smallObject = 16

// addKey records the key just read and reports whether the object had it already.
func (f *jsonFrame) addKey() bool {
	if f.keySet == nil {
		if slices.Contains(f.keys, f.key) {
			return true
		}
		if f.keys = append(f.keys, f.key); len(f.keys) <= smallObject {
			return false
		}
		f.keySet = make(map[string]struct{}, 2*smallObject)
		for _, k := range f.keys {
			f.keySet[k] = struct{}{}
		}
		f.keys = nil
		return false
	}
	if _, dup := f.keySet[f.key]; dup {
		return true
	}
	f.keySet[f.key] = struct{}{}
	return false
}

// stringEnd returns the index of the closing quote of the string that opens at body[start], and whether the
// string is plain: ASCII without escapes, so it needs no further look (most strings of a request).
func stringEnd(body []byte, start int) (int, bool) {
	plain := true
	for i := start + 1; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			plain = false
			i++ // the escaped character cannot close the string
		case c == '"':
			return i, plain
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	return len(body) - 1, plain
}

// stringProblem checks the inside of one string literal (between its quotes) of valid JSON.
func stringProblem(inner []byte) bodyProblem {
	if !utf8.Valid(inner) {
		return bodyInvalidText
	}
	for i := 0; i < len(inner); i++ {
		if inner[i] != '\\' {
			continue
		}
		i++
		if inner[i] != 'u' {
			continue // a one-character escape: \n, \", ...
		}
		r := hex4(inner[i+1:])
		i += 4
		switch {
		case r == 0:
			return bodyNUL
		case !utf16.IsSurrogate(r):
		case r >= 0xDC00: // a low surrogate with no high one before it
			return bodyInvalidText
		case i+6 < len(inner) && inner[i+1] == '\\' && inner[i+2] == 'u' && isLowSurrogate(hex4(inner[i+3:])):
			i += 6 // a pair: one character outside the BMP
		default:
			return bodyInvalidText
		}
	}
	return bodyOK
}

func isLowSurrogate(r rune) bool { return r >= 0xDC00 && r <= 0xDFFF }

// hex4 reads the four hex digits of a \u escape; valid JSON guarantees them (a non-hex byte reads as -1).
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}

// unquote returns a JSON string literal's text as encoding/json reads it. Only a key with escapes or non-ASCII
// bytes (invalid UTF-8 becomes U+FFFD, so two different byte strings can be one key) needs the decoder.
func unquote(lit []byte, plain bool) string {
	if plain {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	_ = json.Unmarshal(lit, &s) // valid JSON: cannot fail
	return s
}

// framesPath names the innermost object's last key by its path from the top ("recipients[3].email").
func framesPath(stack []jsonFrame) string {
	var b strings.Builder
	for _, f := range stack {
		if !f.object {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(f.key)
	}
	return b.String()
}

// validText reports the problem of a string read from outside a JSON body (query, path, header): bodyOK,
// bodyInvalidText or bodyNUL.
func validText(s string) bodyProblem {
	switch {
	case !utf8.ValidString(s):
		return bodyInvalidText
	case strings.IndexByte(s, 0) >= 0:
		return bodyNUL
	}
	return bodyOK
}
