package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
)

// TestCredentialURL_VariesOnAccept: /credentials/{id} answers the credential JSON or the badge page at one URL, so
// every answer (found or not, JSON or HTML) says Vary: Accept (and Accept-Language, which picks the page's
// language) and the same Cache-Control, so that no shared cache serves one representation for the other.
func TestCredentialURL_VariesOnAccept(t *testing.T) {
	f := newListFixture(t)
	ctx := context.Background()
	store, err := blob.NewLocal(t.TempDir())
	require.NoError(t, err)
	signed := []byte(`{"@context":["https://www.w3.org/ns/credentials/v2"],"type":["VerifiableCredential"]}`)
	require.NoError(t, store.Put(ctx, "credentials/vary.json", signed, "application/vc+ld+json"))
	id := f.ids["bob"]
	_, err = f.d.Pool.Exec(ctx, "UPDATE assertions SET credential_key = 'credentials/vary.json' WHERE id = $1", id)
	require.NoError(t, err)
	ring, err := credential.NewKeyring("test:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	require.NoError(t, err)
	srv := startServer(t, api.NewHandler(api.Deps{DB: f.d, Blob: store, PublicBaseURL: baseURL,
		Issuer: issuer.New(f.d, ring, baseURL), Clock: func() time.Time { return fixedNow },
		Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))}))

	for _, c := range []struct {
		name, id, accept string
		status           int
		contentType      string
	}{
		{"json", id, "application/json", 200, "application/vc+ld+json"},
		{"no Accept", id, "", 200, "application/vc+ld+json"},
		{"html", id, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8", 200, "text/html; charset=utf-8"},
		{"unknown json", uuid.NewString(), "application/json", 404, "application/json; charset=utf-8"},
		{"unknown html", uuid.NewString(), "text/html", 404, "text/html; charset=utf-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/credentials/"+c.id, nil)
			require.NoError(t, err)
			if c.accept != "" {
				req.Header.Set("Accept", c.accept)
			}
			res, err := srv.Client().Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, c.status, res.StatusCode, "%s", body)
			require.Equal(t, c.contentType, res.Header.Get("Content-Type"))
			vary := strings.Join(res.Header.Values("Vary"), ",")
			require.Contains(t, vary, "Accept")
			require.Contains(t, vary, "Accept-Language")
			require.Equal(t, []string{"no-cache"}, res.Header.Values("Cache-Control"))
			if c.name == "json" {
				require.Equal(t, signed, body)
			}
		})
	}
}
