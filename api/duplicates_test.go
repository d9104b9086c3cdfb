package api

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDuplicateKey(t *testing.T) {
	for body, want := range map[string]string{ // "" = no duplicate
		`{}`: "",
		`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`:                                       "", // the same key in different objects is fine
		`{"name":"a","name":"b"}`:                                                         "name",
		`{"a":{"b":1,"c":[1,{"x":1}],"b":2}}`:                                             "a.b",
		`{"recipients":[{"email":"a@b.c"},{"name":"x","email":"x@y.z","email":"a@b.c"}]}`: "recipients[1].email",
		`{"a":[[],[{"k":1,"k":2}]]}`:                                                      "a[1][0].k",
		`{"a":"{\"b\":1,\"b\":2}"}`:                                                       "",  // a string that looks like JSON is a string
		`{"a":1,"\u0061":2}`:                                                              "a", // the same key, escaped
		`{"a\"b":1,"x":"\\","a\"b":2}`:                                                    `a"b`,
	} {
		path, found := duplicateKey([]byte(body))
		require.Equal(t, want != "", found, body)
		require.Equal(t, want, path, body)
	}
	path, found := duplicateKey([]byte(`{"":1,"":2}`))
	require.True(t, found, "an empty key twice is a duplicate too")
	require.Empty(t, path)
}

// The handler refuses such a body with COM002, naming the field.
func TestDecodeBody_DuplicateKeyIsRefused(t *testing.T) {
	o, err := fuzzObject([]byte(`{"name":"Go","name":"Rust"}`), v3)
	require.Nil(t, o)
	var ae *apiError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, codeFormat, ae.code)
	require.Equal(t, "name", ae.fields[0].Field)
}

// FuzzDuplicateKey checks the byte scan against a plain reading of the token stream, on every valid JSON body.
func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":[{"b":1},{"b":1,"b":2}]}`, `{"a":1,"\u0061":2}`, `[{"x":"\"","x":1}]`, `{"k":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			return
		}
		_, found := duplicateKey(body)
		require.Equal(t, tokenDuplicate(body), found, "%s", body)
	})
}

// tokenDuplicate is the oracle: encoding/json's tokens, one key set per open object.
func tokenDuplicate(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	type obj struct {
		keys      map[string]bool
		expectKey bool
	}
	var stack []*obj
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1] != nil && stack[n-1].expectKey {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					return true
				}
				stack[n-1].keys[k], stack[n-1].expectKey = true, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &obj{keys: map[string]bool{}, expectKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1] != nil {
			stack[n-1].expectKey = true // a value ended: a key (or the end) comes next
		}
	}
}
