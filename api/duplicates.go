package api

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// duplicateKey reports the path of the first object key that appears twice in its object ("recipients[3].email"). encoding/json keeps the last of two equal keys silently, so a body whose first "name"
// was checked by a proxy or a log reader could carry a second one that we act on; such a body is refused instead.
// body must be valid JSON (decodeBody has parsed it).
func duplicateKey(body []byte) (path string, found bool) {
	type frame struct {
		object bool
		keys   map[string]bool
		key    string // object: the key whose value comes next
		index  int    // array: the index of the next element
		want   bool   // object: a key comes next
		path   string
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []*frame
	// childPath is the path of the value about to be read in the innermost container.
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.object {
			if f.path == "" {
				return f.key
			}
			return f.path + "." + f.key
		}
		return f.path + "[" + strconv.Itoa(f.index) + "]"
	}
	// valueDone moves the innermost container past the value just read.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.object {
			f.want = true
		} else {
			f.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false // io.EOF, or a body decodeBody already refused
		}
		if len(stack) > 0 {
			if f := stack[len(stack)-1]; f.object && f.want {
				if key, ok := tok.(string); ok {
					if f.keys[key] {
						f.key = key
						return childPath(), true
					}
					f.keys[key], f.key, f.want = true, key, false
					continue
				}
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, want: true, path: childPath()})
		case json.Delim('['):
			stack = append(stack, &frame{path: childPath()})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}
