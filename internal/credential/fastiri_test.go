package credential

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fastIRI may only shortcut what the exact check accepts, and only IRIs N-Quads writes unescaped.
func checkFastIRI(tb testing.TB, s string) {
	tb.Helper()
	switch fastIRI(s) {
	case iriOK:
		require.True(tb, exactIRIValid(s), "fast accepts %q, exact refuses", s)
		require.Equal(tb, s, escapeIRI(s))
	case iriBad:
		require.False(tb, exactIRIValid(s), "fast refuses %q, exact accepts", s)
	}
}

func TestFastIRI(t *testing.T) {
	for _, s := range []string{
		"https://badges.example/a", "http://a.b", "https://a", "https://a.", "https://.a.example/x", "https://-a.example/",
		"https://a-.example/", "https://a..b/", "https://a_b.example/", "https://a.example:8443/x", "https://u@a.example/",
		"https://a.example/배지?q=1#f", "https://a.example/a b", "https://a.example/%zz", "https://a.example/%20",
		"https://a.example/\x00", "https://1.2.3.4/", "https://999.1.1.1/", "https://localhost/", "https://x/",
		"https://a.example/" + strings.Repeat("a", 2100), "urn:uuid:1", "did:key:z6Mk#z6Mk", "mailto:a@b.example",
		"https:opaque", "HTTPS://A.EXAMPLE/", "ftp://a.example/", "1http://a", "a:", ":a", "_:b0", "relative/path",
		"https://a.example/{x}", "https://a.example/a\\b", "https://xn--3e0b707e.example/", "https://a.b.c.d.e.example/",
		"https://ab.c/", "https://a.b1/", "https://a.1b/", "https://a.example./", "tag:a.example,2024:x",
		"http://127.0.0.1:8080/credentials/1", "https://a.example:0/", "https://a.example:65536/x", "https://a.example:123456/",
		"https://a.example:/x", "https://a:b:1/", "https://a.example:8x/", "https://:80/", "https://a.example:80",
	} {
		checkFastIRI(t, s)
	}
	for _, s := range []string{"https://badges.example/credentials/1", "http://127.0.0.1:8080/credentials/1"} {
		require.Equal(t, iriOK, fastIRI(s), "%s: a service's own IRIs take the fast path", s)
	}
	r := rand.New(rand.NewPCG(7, 7))
	const alphabet = "ab0-._:/?#@%[]~ 한<\"\\1:9"
	for range 20000 {
		b := []byte("https://")
		if r.IntN(4) == 0 {
			b = []byte("http://")
		}
		for range 1 + r.IntN(20) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		checkFastIRI(t, string(b))
		checkFastIRI(t, randomURL(r))
	}
}
