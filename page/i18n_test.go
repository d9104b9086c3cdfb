package page

import (
	"net/http/httptest"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPageMessages_SameKeys: both languages have every key, and every key a template asks for exists.
func TestPageMessages_SameKeys(t *testing.T) {
	keysOf := func(m map[string]string) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	require.Equal(t, keysOf(pageMessages[LangEN]), keysOf(pageMessages[LangKO]))
	files, err := pageFS.ReadDir("templates")
	require.NoError(t, err)
	used := regexp.MustCompile(`\.T "([^"]+)"`)
	n := 0
	for _, f := range files {
		src, err := pageFS.ReadFile("templates/" + f.Name())
		require.NoError(t, err)
		for _, m := range used.FindAllStringSubmatch(string(src), -1) {
			n++
			require.Contains(t, pageMessages[LangEN], m[1], "%s asks for a missing message", f.Name())
		}
	}
	require.Greater(t, n, 10)
}

func TestPickLang(t *testing.T) {
	for _, c := range []struct{ query, header, want string }{
		{"", "", "en"},
		{"", "ko-KR,ko;q=0.9,en-US;q=0.8", "ko"},
		{"", "en-US,en;q=0.9,ko;q=0.8", "en"},
		{"", "fr-FR,fr;q=0.9,ko;q=0.5,en;q=0.4", "ko"},
		{"", "fr, de", "en"},
		{"", "ko;q=0, en;q=0.1", "en"},
		{"", "ko;q=abc", "en"},
		{"lang=ko", "en", "ko"},
		{"lang=EN", "ko", "en"},
		{"lang=ja", "ko", "ko"},
	} {
		r := httptest.NewRequest("GET", "/verify/x?"+c.query, nil)
		r.Header.Set("Accept-Language", c.header)
		require.Equal(t, c.want, PickLang(r), "%q %q", c.query, c.header)
	}
}
