package page

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/stats"
)

// TestShareNetworks: every network of the one list (stats.Networks) has a target on the page, and each share button
// a label in every language; a name not on the list has none, so the redirect answers it 404.
func TestShareNetworks(t *testing.T) {
	c := shareContent{PageURL: "https://b.example/verify/1", Text: "t", Subject: "s", LinkedInAdd: "https://www.linkedin.com/profile/add?x=1"}
	for _, n := range stats.Networks {
		require.NotEmpty(t, shareTarget(n, c), n)
		if n == stats.NetworkLinkedInAdd || n == stats.NetworkCopy {
			continue
		}
		for _, lang := range pageLangs {
			require.NotEqual(t, "share."+n, msg(lang, "share."+n), "%s label in %s", n, lang)
		}
	}
	require.Empty(t, shareTarget("myspace", c))
}
