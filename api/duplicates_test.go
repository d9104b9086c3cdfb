package api

import (
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
		`{"a":"{\"b\":1,\"b\":2}"}`:                                                       "", // a string that looks like JSON is a string
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
