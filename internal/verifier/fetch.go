package verifier

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Bounds of HTTPFetcher: a controller document or a status list credential is a few KB (a 16 KB status list
// compresses to well under that), so 1 MiB leaves room while keeping a hostile server from filling memory.
const (
	FetchTimeout  = 10 * time.Second
	MaxFetchBytes = 1 << 20
	maxRedirects  = 5
)

// ErrURLNotAllowed reports a URL the fetcher refuses: not HTTPS (plain HTTP only to the loopback host), or a
// redirect to another host.
var ErrURLNotAllowed = errors.New("url not allowed")

// Fetcher fetches a remote JSON document (a controller document or a status list credential).
type Fetcher interface {
	Fetch(ctx context.Context, url string) ([]byte, error)
}

// HTTPFetcher is the Fetcher the command uses; it also serves as a credential.ControllerFetcher.
type HTTPFetcher struct {
	client *http.Client
}

// NewHTTPFetcher returns a fetcher with a FetchTimeout per request, a MaxFetchBytes body cap, HTTPS only (plain HTTP
// to localhost, 127.0.0.1 or ::1, where the development server runs) and redirects only within the same host.
func NewHTTPFetcher() *HTTPFetcher {
	return &HTTPFetcher{client: &http.Client{
		Timeout: FetchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("%w: more than %d redirects", ErrURLNotAllowed, maxRedirects)
			}
			// A document must come from the host its id names; a redirect elsewhere would let that host speak for it.
			if !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
				return fmt.Errorf("%w: redirect from %s to another host %s", ErrURLNotAllowed, via[0].URL.Host, req.URL.Host)
			}
			if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
				return fmt.Errorf("%w: redirect from https to %s", ErrURLNotAllowed, req.URL.Scheme)
			}
			return checkURL(req.URL)
		},
	}}
}

// Fetch implements Fetcher: GET url, accept only 200, return at most MaxFetchBytes.
func (f *HTTPFetcher) Fetch(ctx context.Context, rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrURLNotAllowed, rawURL, err)
	}
	if err := checkURL(u); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	req.Header.Set("Accept", "application/did+ld+json, application/vc+ld+json, application/ld+json, application/json;q=0.9")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: HTTP %s", rawURL, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxFetchBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	if len(body) > MaxFetchBytes {
		return nil, fmt.Errorf("fetch %s: body larger than %d bytes", rawURL, MaxFetchBytes)
	}
	return body, nil
}

// FetchController implements credential.ControllerFetcher.
func (f *HTTPFetcher) FetchController(ctx context.Context, url string) ([]byte, error) {
	return f.Fetch(ctx, url)
}

// checkURL allows https, and http only to the loopback host.
func checkURL(u *url.URL) error {
	switch {
	case u.Host == "":
		return fmt.Errorf("%w: %s has no host", ErrURLNotAllowed, u)
	case u.User != nil:
		return fmt.Errorf("%w: %s carries credentials", ErrURLNotAllowed, u.Redacted())
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopbackHost(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%w: %s is not https (plain http is only allowed to localhost)", ErrURLNotAllowed, u.Redacted())
}

func isLoopbackHost(h string) bool {
	return strings.EqualFold(h, "localhost") || h == "127.0.0.1" || h == "::1"
}

// isLocalHTTP reports whether s is a plain-HTTP loopback URL (an issuer id of the development server).
func isLocalHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "http" && isLoopbackHost(u.Hostname())
}
