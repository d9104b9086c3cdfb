package verifier

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHTTPFetcher(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"from":"other"}`))
	}))
	t.Cleanup(other.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/doc", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"ok":true}`)) })
	mux.HandleFunc("/same-host", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/doc", http.StatusFound) })
	mux.HandleFunc("/other-host", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/doc", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat(" ", MaxFetchBytes+1)))
	})
	mux.HandleFunc("/exact", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat(" ", MaxFetchBytes)))
	})
	srv := httptest.NewServer(mux) // 127.0.0.1: plain http allowed
	t.Cleanup(srv.Close)
	localhost := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	tests := []struct {
		name    string
		url     string
		want    string
		wantErr string
	}{
		{"loopback http", srv.URL + "/doc", `{"ok":true}`, ""},
		{"localhost http", localhost + "/doc", `{"ok":true}`, ""},
		{"redirect on the same host", srv.URL + "/same-host", `{"ok":true}`, ""},
		{"redirect to another host", srv.URL + "/other-host", "", "redirect from"},
		{"redirect loop", srv.URL + "/loop", "", "redirects"},
		{"not found", srv.URL + "/missing", "", "HTTP 404"},
		{"over the size cap", srv.URL + "/big", "", "larger than"},
		{"at the size cap", srv.URL + "/exact", strings.Repeat(" ", MaxFetchBytes), ""},
		{"remote http", "http://example.com/issuer", "", "is not https"},
		{"file scheme", "file:///etc/passwd", "", "url not allowed"},
		{"user info", "https://user:pw@example.com/x", "", "carries credentials"},
	}
	f := NewHTTPFetcher()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.Fetch(context.Background(), tt.url)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))
		})
	}
}
