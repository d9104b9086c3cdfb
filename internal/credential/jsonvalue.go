package credential

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Signing used to pass every document through json.Marshal and json.Unmarshal: once to get a private copy made
// only of encoding/json's types, once per canonicalization to measure it against MaxDocumentBytes. For the
// documents Build makes, both answers can be had without encoding: copyJSON and jsonLen below. Each returns
// false for anything where encoding/json could answer differently (other Go types, invalid UTF-8, NaN), and the
// caller encodes then; jsonvalue_test.go holds them to encoding/json.

// copyJSON returns a deep copy of v if v is made only of what json.Unmarshal produces into an any (maps of
// string to any, []any, string, float64, bool, nil), with valid UTF-8 strings and finite numbers: then the copy
// is what json.Unmarshal(json.Marshal(v)) would return.
func copyJSON(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool:
		return x, true
	case string:
		return x, utf8.ValidString(x)
	case float64:
		return x, !math.IsInf(x, 0) && !math.IsNaN(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var ok bool
			if out[i], ok = copyJSON(e); !ok {
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, ok := copyJSON(e)
			if !ok || !utf8.ValidString(k) {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	}
	return nil, false
}

// jsonLen returns len(json.Marshal(v)) for v made of encoding/json's decoded types, without encoding it.
func jsonLen(v any) (int, bool) {
	switch x := v.(type) {
	case nil:
		return 4, true
	case bool:
		if x {
			return 4, true
		}
		return 5, true
	case string:
		return quotedLen(x), true
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 0, false
		}
		var buf [32]byte
		return len(appendJSONFloat(buf[:0], x)), true
	case []any:
		n := 2 + max(len(x)-1, 0) // brackets, commas
		for _, e := range x {
			l, ok := jsonLen(e)
			if !ok {
				return 0, false
			}
			n += l
		}
		return n, true
	case map[string]any:
		n := 2 + max(len(x)-1, 0) // braces, commas
		for k, e := range x {
			l, ok := jsonLen(e)
			if !ok {
				return 0, false
			}
			n += quotedLen(k) + 1 + l // key, colon, value
		}
		return n, true
	}
	return 0, false
}

// quotedLen is the length of a string as encoding/json writes it (HTML-escaped, as json.Marshal does).
func quotedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&':
				n++
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			default:
				n += 6 // \u00XX
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// appendJSONFloat formats a float64 as encoding/json does (ES6 number to string).
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
