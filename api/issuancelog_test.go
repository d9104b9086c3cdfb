package api_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/issuancelog"
)

// appendLog appends n entries to the Env organization's issuance log as the anchor step does, under the origin of
// the server the test reads from (base).
func appendLog(t testing.TB, e *apitest.Env, base string, from, n int) issuancelog.Appended {
	t.Helper()
	ctx := context.Background()
	key, err := e.Issuer.Key(ctx, e.Org.ID, apikey.ModeLive)
	require.NoError(t, err)
	es := make([]issuancelog.Entry, n)
	for i := range es {
		id := fmt.Sprintf("%s/credentials/%d", base, from+i)
		es[i] = issuancelog.Entry{CredentialID: id, SHA256: sha256.Sum256([]byte(id)), Type: "OpenBadgeCredential",
			ValidFrom: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	}
	var out issuancelog.Appended
	require.NoError(t, e.DB.InTx(ctx, func(q *db.Queries) error {
		out, err = issuancelog.Append(ctx, q, issuancelog.Origin(base, e.Org.ID), e.Org.ID, key, es, nil)
		return err
	}))
	return out
}

// TestIssuanceLog_Serving: the checkpoint and tiles are served under the issuer id with C2SP caching (full tiles
// forever, partial ones and the checkpoint briefly); past the tree size, a malformed path or a log that does not
// exist answer 404.
func TestIssuanceLog_Serving(t *testing.T) {
	e := apitest.New(t)
	logURL := "/issuers/" + e.Org.ID.String() + "/log/"
	require.Equal(t, http.StatusNotFound, e.Do(t, http.MethodGet, logURL+"checkpoint", "", "").Status)
	a := appendLog(t, e, e.Srv.URL, 0, 300)

	cp := e.Do(t, http.MethodGet, logURL+"checkpoint", "", "")
	require.Equal(t, http.StatusOK, cp.Status)
	require.Equal(t, a.Note, string(cp.Raw))
	require.Equal(t, "public, max-age=5", cp.Header.Get("Cache-Control"))
	require.True(t, strings.HasPrefix(string(cp.Raw), issuancelog.Origin(e.Srv.URL, e.Org.ID)+"\n300\n"))

	for path, cache := range map[string]string{
		"tile/0/000": "public, max-age=31536000, immutable", "tile/0/001.p/44": "public, max-age=10",
		"tile/1/000.p/1": "public, max-age=10", "tile/entries/000": "public, max-age=31536000, immutable",
		"tile/entries/001.p/44": "public, max-age=10", "tile/entries/001.p/3": "public, max-age=10",
	} {
		r := e.Do(t, http.MethodGet, logURL+path, "", "")
		require.Equal(t, http.StatusOK, r.Status, path)
		require.Equal(t, cache, r.Header.Get("Cache-Control"), path)
		require.Equal(t, "application/octet-stream", r.Header.Get("Content-Type"), path)
	}
	for _, path := range []string{"tile/0/001", "tile/0/001.p/45", "tile/0/002.p/1", "tile/entries/001", "tile/entries/001.p/45",
		"tile/2/000.p/1", "tile/0/x", "tile/entries/", "tile/0/000.p/256", "tile/-1/000"} {
		r := e.Do(t, http.MethodGet, logURL+path, "", "")
		require.Equal(t, http.StatusNotFound, r.Status, path)
	}
	require.Equal(t, http.StatusNotFound, e.Do(t, http.MethodGet, "/issuers/"+e.Other.ID.String()+"/log/tile/0/000.p/1", "", "").Status)
}

// TestIssuanceLog_Monitor: the monitor verifies the served log (the note's signature with the controller
// document's key, entries and tiles against the root), proves a later checkpoint consistent with the state of an
// earlier run and lists just the entries added since; a tampered tile, entry bundle or checkpoint, and a log that
// forked from the state, are each refused.
func TestIssuanceLog_Monitor(t *testing.T) {
	e := apitest.New(t)
	issuer := e.Srv.URL + "/issuers/" + e.Org.ID.String()
	appendLog(t, e, e.Srv.URL, 0, 3)
	m := issuancelog.Monitor{}
	ctx := context.Background()
	first, err := m.Verify(ctx, issuer, nil)
	require.NoError(t, err)
	require.Len(t, first.Added, 3)
	state := first.NewState()

	appendLog(t, e, e.Srv.URL, 3, 297)
	appendLog(t, e, e.Srv.URL, 300, 1)
	second, err := m.Verify(ctx, issuer, &state)
	require.NoError(t, err)
	require.EqualValues(t, 301, second.Checkpoint.Size)
	require.Len(t, second.Added, 298)
	require.EqualValues(t, 3, second.Added[0].Index)
	require.Equal(t, e.Srv.URL+"/credentials/3", second.Added[0].CredentialID)

	forked := state
	forked.RootHash = second.NewState().RootHash // a root of size 3 the log never had
	_, err = m.Verify(ctx, issuer, &forked)
	require.ErrorContains(t, err, "forked")

	// A proxy in front of the server alters one response; the monitor reads through it under the server's URL
	// (rewrite), so the checkpoint's origin still matches.
	for _, tc := range []struct{ path, want string }{
		{"/log/tile/0/000", "hash tile"},
		{"/log/tile/entries/001.p/45", "do not hash to the checkpoint's root"},
		{"/log/checkpoint", "checkpoint"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			target, _ := url.Parse(e.Srv.URL)
			proxy := httputil.NewSingleHostReverseProxy(target)
			proxy.ModifyResponse = func(r *http.Response) error {
				if !strings.HasSuffix(r.Request.URL.Path, tc.path) {
					return nil
				}
				body, err := io.ReadAll(r.Body)
				if err != nil {
					return err
				}
				if tc.path == "/log/checkpoint" {
					body = bytes.Replace(body, []byte("\n301\n"), []byte("\n300\n"), 1)
				} else {
					body[len(body)-1] ^= 1
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				r.ContentLength = int64(len(body))
				r.Header.Del("Content-Length")
				return nil
			}
			front := httptest.NewServer(proxy)
			defer front.Close()
			c := &http.Client{Transport: rewrite{to: front.URL, from: e.Srv.URL}}
			_, err := issuancelog.Monitor{Client: c}.Verify(ctx, issuer, nil)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// rewrite sends requests for one server to another (the tampering proxy), leaving the URLs the client sees alone.
type rewrite struct{ from, to string }

func (r rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	u, _ := url.Parse(strings.Replace(req.URL.String(), r.from, r.to, 1))
	out := req.Clone(req.Context())
	out.URL, out.Host = u, u.Host
	return http.DefaultTransport.RoundTrip(out)
}

// TestIssuanceLog_Backfill: credentials issued before the log existed are appended once, in issuance order, with
// the digest of their served bytes; a second run appends nothing; the log then verifies with the monitor.
func TestIssuanceLog_Backfill(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	var ids []string
	for i := range 3 {
		id := e.IssueSigned(t, fmt.Sprintf("Recipient %d", i), fmt.Sprintf("r%d@example.com", i))
		ids = append(ids, e.Issuer.CredentialID(id))
		// The handler's clock is pinned: the three were accepted in this order, a second apart.
		_, err := e.DB.Pool.Exec(ctx, "UPDATE assertions SET created_at = created_at + make_interval(secs => $2) WHERE id = $1", id, i)
		require.NoError(t, err)
	}
	deps := issuancelog.BackfillDeps{BaseURL: e.Issuer.BaseURL, CredentialID: e.Issuer.CredentialID,
		Key: func(ctx context.Context, org uuid.UUID) (ed25519.PrivateKey, error) {
			return e.Issuer.Key(ctx, org, apikey.ModeLive)
		}}
	n, err := issuancelog.Backfill(ctx, e.DB, deps, e.Org.ID)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	n, err = issuancelog.Backfill(ctx, e.DB, deps, e.Org.ID)
	require.NoError(t, err)
	require.Zero(t, n)
	rows, err := e.DB.ReadIssuanceLogEntries(ctx, db.ReadIssuanceLogEntriesParams{OrgID: e.Org.ID, Lo: 0, Hi: 10})
	require.NoError(t, err)
	require.Len(t, rows, 3)
	for i, r := range rows {
		entry, err := issuancelog.ParseEntry(r.Entry)
		require.NoError(t, err)
		require.Equal(t, ids[i], entry.CredentialID, "issuance order")
		served := e.Do(t, http.MethodGet, strings.TrimPrefix(entry.CredentialID, apitest.BaseURL), "", "")
		require.Equal(t, http.StatusOK, served.Status)
		require.Equal(t, sha256.Sum256(served.Raw), entry.SHA256, "the digest of the bytes as served")
	}
}
