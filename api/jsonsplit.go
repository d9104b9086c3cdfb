package api

import "encoding/json"

// The functions here take apart JSON that is already known to be valid (a body that passed json.Valid, or a value
// taken from one) without validating it again. encoding/json validates the whole input on every Unmarshal, so
// reading a body of 100,000 recipients as an object, its array, each element and each field scanned the same
// bytes four times and copied them into fresh RawMessages at each level (about a third of a 100,000-recipient
// POST's CPU). What they return is what encoding/json would: the same keys (unescaped; of two equal keys the last
// wins), each value's bytes without surrounding white space. The values alias the input, which no reader
// modifies (3-index slices keep an append from writing into it).

// isSpace is JSON's white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// valueEnd returns the index just past the valid JSON value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		end, _ := stringEnd(b, i)
		return end + 1
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i, _ = stringEnd(b, i)
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++ // a number, true, false or null
	}
	return i
}

// splitObject returns the members of the valid JSON object raw (raw[0] is '{'), as json.Unmarshal into a
// map[string]json.RawMessage would.
func splitObject(raw []byte) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, 8)
	i := skipSpace(raw, 1)
	for i < len(raw) && raw[i] != '}' {
		end, plain := stringEnd(raw, i)
		key := unquote(raw[i:end+1], plain)
		i = skipSpace(raw, end+1) + 1 // past the ':'
		i = skipSpace(raw, i)
		vend := valueEnd(raw, i)
		m[key] = raw[i:vend:vend]
		i = skipSpace(raw, vend)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return m
}

// splitArray returns the elements of the valid JSON array raw (raw[0] is '['), as json.Unmarshal into a
// []json.RawMessage would.
func splitArray(raw []byte) []json.RawMessage {
	items := []json.RawMessage{}
	i := skipSpace(raw, 1)
	for i < len(raw) && raw[i] != ']' {
		vend := valueEnd(raw, i)
		items = append(items, raw[i:vend:vend])
		i = skipSpace(raw, vend)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return items
}

// plainString returns the text of a JSON string literal that is ASCII without escapes (most strings of a
// request), and false for anything else, which json.Unmarshal then reads.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	end, plain := stringEnd(raw, 0)
	if !plain || end != len(raw)-1 {
		return "", false
	}
	return string(raw[1:end]), true
}

// unmarshalString is json.Unmarshal of raw into a string, without it for a plain string literal.
func unmarshalString(raw []byte) (string, error) {
	if s, ok := plainString(raw); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}
