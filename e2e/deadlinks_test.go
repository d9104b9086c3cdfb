package e2e

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// browserAccept is what Chromium sends for a page.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

// TestCredentialLinks_NoneDead issues through the whole pipeline a live v3, a live v2 and a test-mode v3 credential
// and follows every URL of this service each credential states (issuer id and url, achievement id and image,
// credential id, status list), the links the API gives for it (credentialUrl, openbadgeImageUrl) and its anchor
// receipt, as a browser and as a machine: each must answer 200. Evidence URLs are the issuer's own (https
// elsewhere), not this service's, and are not followed.
func TestCredentialLinks_NoneDead(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	found := map[string]string{} // URL → where it was written
	var collect func(where string, v any)
	collect = func(where string, v any) {
		switch x := v.(type) {
		case string:
			if strings.HasPrefix(x, s.BaseURL+"/") {
				found[x] = where
			}
		case []any:
			for _, e := range x {
				collect(where, e)
			}
		case map[string]any:
			for _, e := range x {
				collect(where, e)
			}
		}
	}
	for _, c := range []struct{ v, key, name string }{{"v3", tn.Key, "live v3"}, {"v2", tn.Key, "live v2"}, {"v3", tn.TestKey, "test v3"}} {
		id := s.mustIssue(t, c.v, c.key, tn.Badge, "links-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("links-"+strings.ReplaceAll(c.name, " ", "-"), 1), ""))
		require.Equal(t, "COMPLETED", s.waitIssuance(t, c.v, c.key, id, issueTimeout)["processingStatus"], c.name)
		for _, r := range s.assertionRows(t, id) {
			d := s.getAssertion(t, c.v, c.key, r.ID.String())
			for _, f := range []string{"credentialUrl", "openbadgeImageUrl"} {
				if u, ok := d[f].(string); ok {
					found[u] = c.name + " API " + f
				}
			}
			res := s.get(t, "/credentials/"+r.ID.String(), "", "application/json")
			require.Equal(t, http.StatusOK, res.Status, "%s", res.Raw)
			var cred map[string]any
			require.NoError(t, json.Unmarshal(res.Raw, &cred))
			collect(c.name+" credential", cred)
			if r.AnchorTxHash != nil {
				found[s.BaseURL+"/credentials/"+r.ID.String()+"/receipt"] = c.name + " receipt"
			}
		}
	}
	urls := make([]string, 0, len(found))
	for u := range found {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, kind := range []string{"/issuers/", "/achievements/", "/media/", "/credentials/", "/status-lists/", "/receipt"} {
		n := 0
		for _, u := range urls {
			if strings.Contains(u, kind) {
				n++
			}
		}
		require.Positive(t, n, "the walk reaches %s URLs", kind)
	}
	require.Contains(t, urls, s.BaseURL+"/", "the test issuer's url, the service root")
	for _, u := range urls {
		for _, accept := range []string{browserAccept, "application/json", "application/ld+json"} {
			res := s.get(t, u, "", accept)
			require.Equal(t, http.StatusOK, res.Status, "%s (from the %s) with Accept %q: %.200s", u, found[u], accept, res.Raw)
		}
	}
	t.Logf("followed %d URLs, each as a browser and as two kinds of machine", len(urls))
}
