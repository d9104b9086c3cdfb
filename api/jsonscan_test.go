package api

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// duplicateKey is scanBody's answer about duplicates alone.
func duplicateKey(body []byte) (string, bool) {
	p, path := scanBody(body)
	return path, p == bodyDuplicateKey
}

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

func TestScanBody_Text(t *testing.T) {
	for body, want := range map[string]struct {
		p    bodyProblem
		path string
	}{
		`{"name":"ok","d":"\u00e9\ud83d\ude00 é 😀"}`: {bodyOK, ""},
		`{"name":"a\u0000b"}`:                        {bodyNUL, "name"},
		`{"a":{"b":["x","\u0000"]}}`:                 {bodyNUL, "a.b[1]"},
		`{"recipients":[{},{"email":"\u0000"}]}`:     {bodyNUL, "recipients[1].email"},
		"{\"name\":\"a\xffb\"}":                      {bodyInvalidText, "name"},
		"{\"k\xc3\":1}":                              {bodyInvalidText, "k\ufffd"},
		`{"name":"\ud800"}`:                          {bodyInvalidText, "name"},
		`{"name":"\udc00\ud800"}`:                    {bodyInvalidText, "name"},
		`{"name":"\ud800x"}`:                         {bodyInvalidText, "name"},
		`{"name":"\ud800\u0041"}`:                    {bodyInvalidText, "name"},
		`{"na\u0000me":1}`:                           {bodyNUL, "na\x00me"},
		`{"a":"\\u0000"}`:                            {bodyOK, ""}, // an escaped backslash, then text
		`{"a":"x","a":"\u0000"}`:                     {bodyDuplicateKey, "a"},
		`{"a":"\u0000","a":"x"}`:                     {bodyNUL, "a"},
	} {
		p, path := scanBody([]byte(body))
		require.Equal(t, want.p, p, "%q", body)
		require.Equal(t, want.path, path, "%q", body)
	}
}

// FuzzScanBody checks the byte scan against a plain reading of the token stream, on every valid JSON body: the
// same duplicate answer, and a string problem only where encoding/json reads a NUL (bodyNUL) or makes a U+FFFD
// (bodyInvalidText) out of something.
func FuzzScanBody(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":[{"b":1},{"b":1,"b":2}]}`, `{"a":1,"\u0061":2}`, `[{"x":"\"","x":1}]`,
		`{"k":{}}`, `{"a":"\u0000"}`, "{\"a\":\"\xff\"}", `{"a":"\ud800\udc00"}`, `{"a":["\udbff"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			return
		}
		p, _ := scanBody(body)
		dup, nul, replaced := tokenProblems(body)
		switch p {
		case bodyOK, bodyDuplicateKey:
			require.Equal(t, dup, p == bodyDuplicateKey, "%q", body)
			require.False(t, nul, "%q: a NUL got through", body)
		case bodyNUL:
			require.True(t, nul, "%q", body)
		case bodyInvalidText:
			require.True(t, replaced, "%q", body)
		}
		if p == bodyOK && replaced {
			require.True(t, bytes.Contains(body, []byte("\xef\xbf\xbd")) || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)),
				"%q: U+FFFD made from invalid text got through", body)
		}
	})
}

// tokenProblems reads body's tokens with encoding/json: whether an object repeats a key, whether a string holds a
// NUL, whether a string holds U+FFFD.
func tokenProblems(body []byte) (dup, nul, replaced bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return tokenDuplicate(body), nul, replaced
		}
		if s, ok := tok.(string); ok {
			nul = nul || strings.ContainsRune(s, 0)
			replaced = replaced || strings.ContainsRune(s, utf8.RuneError)
		}
	}
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
