package api

import (
	"encoding/json"
	"net/mail"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzSplitJSON holds the splitters to encoding/json: on every valid body, splitObject and splitArray return what
// json.Unmarshal into a map[string]json.RawMessage or a []json.RawMessage returns, at every level, and
// unmarshalString reads a string as json.Unmarshal does.
func FuzzSplitJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, ` { "a" : [ 1 , {"b":"c"} ] , "d":null } `, `{"a":1,"a":2}`, `{"\u0061":"x\"y"}`,
		`[ "a\\", -1.5e3 , true,false,null,[[]],{"":{}} ]`, "{\"\xff\":\"\xfe\"}", `{"recipients":[{"name":" R ","email":"A@B.CO"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			return
		}
		requireSplitLike(t, json.RawMessage(strings.TrimSpace(string(body))))
	})
}

func requireSplitLike(t *testing.T, raw json.RawMessage) {
	switch raw[0] {
	case '{':
		var want map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &want))
		got := splitObject(raw)
		require.Equal(t, len(want), len(got), "%s", raw)
		for k, v := range want {
			require.Equal(t, string(v), string(got[k]), "%s: key %q", raw, k)
			requireSplitLike(t, v)
		}
	case '[':
		var want []json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &want))
		got := splitArray(raw)
		require.Equal(t, len(want), len(got), "%s", raw)
		for i := range want {
			require.Equal(t, string(want[i]), string(got[i]), "%s: [%d]", raw, i)
			requireSplitLike(t, want[i])
		}
	case '"':
		var want string
		require.NoError(t, json.Unmarshal(raw, &want))
		got, err := unmarshalString(raw)
		require.NoError(t, err)
		require.Equal(t, want, got)
	default:
		var want string
		wantErr := json.Unmarshal(raw, &want)
		got, err := unmarshalString(raw)
		require.Equal(t, wantErr == nil, err == nil, "%s", raw)
		require.Equal(t, want, got)
	}
}

// FuzzPlainEmail holds plainEmail to what it stands in for: every address it accepts, mail.ParseAddress reads
// back as itself, with no display name and a dotted domain (normalizeEmail's own rule).
func FuzzPlainEmail(f *testing.F) {
	for _, s := range []string{"a@b.co", "minji.kim+tag@example.co.kr", "a..b@c.d", ".a@b.c", "a@b", "a@-b.c", "a@b-.c", "%@1.2", "a@b.c.", "_@x.io"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainEmail(s) {
			return
		}
		a, err := mail.ParseAddress(s)
		require.NoError(t, err, "%q", s)
		require.Equal(t, s, a.Address)
		require.Empty(t, a.Name)
		at := strings.LastIndexByte(s, '@')
		require.True(t, at >= 1 && strings.Contains(s[at+1:], ".") && !strings.HasSuffix(s, "."), "%q", s)
	})
}
