package verifier

import (
	"net/url"
	"testing"
)

func TestSuccessorLink(t *testing.T) {
	base, _ := url.Parse("https://badges.example/credentials/a")
	for _, tc := range []struct {
		name   string
		values []string
		want   string
	}{
		{"absolute", []string{`<https://badges.example/credentials/b>; rel="successor-version"`}, "https://badges.example/credentials/b"},
		{"relative, among others", []string{`</x>; rel="alternate", </credentials/b>; rel=successor-version`}, "https://badges.example/credentials/b"},
		{"another host is not believed", []string{`<https://evil.example/c>; rel="successor-version"`}, ""},
		{"other relation", []string{`<https://badges.example/credentials/b>; rel="predecessor-version"`}, ""},
		{"none", nil, ""},
		{"malformed", []string{`https://badges.example/credentials/b; rel="successor-version"`}, ""},
	} {
		if got := successorLink(tc.values, base); got != tc.want {
			t.Errorf("%s: successorLink(%q) = %q, want %q", tc.name, tc.values, got, tc.want)
		}
	}
}
