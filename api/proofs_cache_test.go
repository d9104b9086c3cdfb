package api_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/internal/blob"
)

// countingStore counts the reads of stored credentials: each is one full check of a credential's proof.
type countingStore struct {
	blob.Store
	mu    sync.Mutex
	reads map[string]int
}

func (s *countingStore) Get(ctx context.Context, key string) (io.ReadCloser, blob.Info, error) {
	if strings.HasPrefix(key, "credentials/") {
		s.mu.Lock()
		s.reads[key]++
		s.mu.Unlock()
	}
	return s.Store.Get(ctx, key)
}

// verified is how often the stored credential of id was read, and so its proof checked.
func (s *countingStore) verified(id uuid.UUID) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads["credentials/"+id.String()+".json"]
}

// TestPage_ProofChecksKept: the counted requests of a badge (page views, share clicks, the certificate) and its
// preview check its signature and anchor once, not per request; the revocation and the expiry, which are decided on
// every request, show at once on the page itself; a change of the issuer's key, which decides the signature,
// checks it again at once.
func TestPage_ProofChecksKept(t *testing.T) {
	f := newPageFixture(t)
	now := time.Now().UTC().Truncate(time.Second)
	f.clock.Set(now)
	store := &countingStore{Store: f.store, reads: map[string]int{}}
	deps := issuanceDeps(t, f.d, f.starter, f.clock.Now)
	deps.Blob, deps.Issuer = store, f.iss
	srv := startServer(t, api.NewHandler(deps))
	get := func(path string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("User-Agent", browserUA)
		c := *srv.Client()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := c.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(b)
	}
	heading := func(page string) string {
		i := strings.Index(page, `<h1 id="verdict">`)
		require.GreaterOrEqual(t, i, 0)
		return page[i+len(`<h1 id="verdict">`) : i+strings.Index(page[i:], "</h1>")]
	}

	id := f.issueSignedTo(t, "김하늘", "sky@example.com", now.Add(-time.Hour))
	var token string
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT certificate_token::text FROM assertions WHERE id = $1", id).Scan(&token))
	for range 5 {
		status, page := get("/verify/" + id.String())
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, "This badge is valid", heading(page))
	}
	for _, path := range []string{"/share/" + id.String() + "/x", "/credentials/" + id.String() + "/certificate.pdf?token=" + token,
		"/credentials/" + id.String() + "/preview.png", "/verify/" + id.String() + "?lang=ko"} {
		status, body := get(path)
		require.Less(t, status, 400, "%s: %s", path, body)
	}
	require.Equal(t, 1, store.verified(id), "one check of the proof for nine requests")

	// A revocation shows on the next request, with no new check of the proof.
	f.mustOK(t, http.MethodPost, "/public/v3/assertions/"+id.String()+"/cancel", f.keys["manager"], `{"reason":"issued in error"}`)
	_, page := get("/verify/" + id.String())
	require.True(t, strings.HasPrefix(heading(page), "This badge was revoked on "), heading(page))
	status, _ := get("/share/" + id.String() + "/linkedin-add")
	require.Equal(t, http.StatusNotFound, status, "no add-to-profile for a revoked badge")
	require.Equal(t, 1, store.verified(id))

	// So does an expiry: the one-month badge, two months on.
	other := f.issueSignedTo(t, "박지민", "jimin@example.com", now.Add(-time.Hour))
	_, page = get("/verify/" + other.String())
	require.Equal(t, "This badge is valid", heading(page))
	f.clock.Set(now.AddDate(0, 2, 0))
	_, page = get("/verify/" + other.String())
	require.True(t, strings.HasPrefix(heading(page), "This badge expired on "), heading(page))
	require.Equal(t, 1, store.verified(other))

	// The issuer's key changed (rotated, or its row tampered with): the proof is checked again at once, and fails.
	f.clock.Set(now)
	_, err := f.d.Pool.Exec(context.Background(), "UPDATE issuer_keys SET public_key = $2 WHERE org_id = $1 AND mode = 'live'",
		f.org.ID, bytes.Repeat([]byte{9}, 32))
	require.NoError(t, err)
	_, page = get("/verify/" + other.String())
	require.Equal(t, "This badge could not be verified", heading(page))
	require.Equal(t, 2, store.verified(other))
}

// BenchmarkBadgePage_Signed is one view of the page of a signed credential (valid, unanchored), the request a
// counted page view is: with the proof checks kept, a view after the first reads the controller document and the
// status instead of reading the credential and verifying its proof.
func BenchmarkBadgePage_Signed(b *testing.B) {
	f := newPageFixture(b)
	f.clock.Set(time.Now().UTC().Truncate(time.Second))
	id := f.issueSignedTo(b, "김하늘", "sky@example.com", f.clock.Now().Add(-time.Hour))
	url := f.srv.URL + "/verify/" + id.String()
	get := func() {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("User-Agent", browserUA)
		res, err := f.srv.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatal(res.Status)
		}
	}
	get()
	b.ReportAllocs()
	for b.Loop() {
		get()
	}
}
