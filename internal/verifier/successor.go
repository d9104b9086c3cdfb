package verifier

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// SuccessorFinder is a Fetcher that can also ask where a credential's replacement is. *HTTPFetcher implements it.
type SuccessorFinder interface {
	Successor(ctx context.Context, credentialURL string) (string, error)
}

// Successor asks the credential's own URL (its id) for a `Link: <URL>; rel="successor-version"` header (RFC 5829),
// which badged sends for a credential that a reissue replaced. "" means none was named.
func (f *HTTPFetcher) Successor(ctx context.Context, credentialURL string) (string, error) {
	u, err := url.Parse(credentialURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", nil // not a URL (a urn:uuid id, say): there is nowhere to ask
	}
	if err := checkURL(u); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", credentialURL, err)
	}
	req.Header.Set("Accept", "application/vc+ld+json, application/ld+json, application/json;q=0.9")
	resp, err := f.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", credentialURL, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxFetchBytes))
	if resp.StatusCode != http.StatusOK {
		return "", nil
	}
	return successorLink(resp.Header.Values("Link"), u), nil
}

// successorLink finds the rel="successor-version" target among Link header values, resolved against base; only
// a target on the credential's own host is believed, as the issuer is the one to name a replacement.
func successorLink(values []string, base *url.URL) string {
	for _, v := range values {
		for _, link := range strings.Split(v, ",") {
			parts := strings.Split(link, ";")
			target := strings.TrimSpace(parts[0])
			if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			for _, p := range parts[1:] {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(k, "rel") && strings.Trim(val, `"`) == "successor-version" {
					t, err := base.Parse(strings.Trim(target, "<>"))
					if err == nil && strings.EqualFold(t.Host, base.Host) {
						return t.String()
					}
				}
			}
		}
	}
	return ""
}
