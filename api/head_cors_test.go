package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// send is one request with extra headers; key "" sends no X-API-KEY.
func (e *env) send(t *testing.T, method, path, key string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, e.srv.URL+path, nil)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := e.srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, body
}

// TestHEADAnswersAsGET: HEAD on every GET route, keyed and public, answers the GET's status and content headers
// with no body (it was 405 METHOD_NOT_ALLOWED).
func TestHEADAnswersAsGET(t *testing.T) {
	f := newIssFixture(t)
	key := f.keys["manager"]
	paths := []struct{ path, key string }{
		{"/public/v3/organization", key}, {"/public/v2/organization", key},
		{"/public/v3/programs", key}, {"/public/v3/programs/" + f.vars["{program}"], key},
		{"/public/v3/badges", key}, {"/public/v2/badges/" + f.vars["{badge}"], key},
		{"/public/v3/badges/" + f.vars["{missing}"], key}, // a 404 is a 404 for HEAD too
		{"/public/v3/assertions", key}, {"/public/v3/webhooks", key},
		{"/public/v3/organization", ""}, // 401 without a key
		{"/public/v3/openapi.json", ""}, {"/public/v2/openapi.json", ""},
		{"/issuers/" + f.org.ID.String(), ""}, {"/credentials/" + f.vars["{missing}"], ""}, {"/healthz", ""},
	}
	for _, p := range paths {
		t.Run(p.path, func(t *testing.T) {
			get, getBody := f.send(t, http.MethodGet, p.path, p.key, nil)
			head, headBody := f.send(t, http.MethodHead, p.path, p.key, nil)
			require.NotEqual(t, http.StatusMethodNotAllowed, head.StatusCode)
			require.Equal(t, get.StatusCode, head.StatusCode, "GET answered %s", getBody)
			require.Equal(t, get.Header.Get("Content-Type"), head.Header.Get("Content-Type"))
			require.NotEmpty(t, head.Header.Get("X-Request-Id"))
			require.Empty(t, headBody)
		})
	}
	// HEAD changes nothing: it never reaches a write handler.
	head, _ := f.send(t, http.MethodHead, "/public/v3/badges/"+f.vars["{badge}"]+"/issuances", key, nil)
	require.Equal(t, http.StatusMethodNotAllowed, head.StatusCode)
}

// TestCORS: public keyless resources may be read from any origin (GET/HEAD, preflight answered); the keyed API
// refuses a browser's preflight with 403 CORS_NOT_ALLOWED and never allows an origin.
func TestCORS(t *testing.T) {
	f := newIssFixture(t)
	origin := map[string]string{"Origin": "https://wallet.example"}
	preflight := func(method, headers string) map[string]string {
		return map[string]string{"Origin": "https://wallet.example", "Access-Control-Request-Method": method,
			"Access-Control-Request-Headers": headers}
	}

	t.Run("keyed API: preflight refused", func(t *testing.T) {
		for _, path := range []string{"/public/v3/badges", "/public/v2/organization", "/public/v3/badges/" + f.vars["{badge}"] + "/issuances"} {
			res, body := f.send(t, http.MethodOptions, path, "", preflight(http.MethodPost, "x-api-key, content-type"))
			r := response{Status: res.StatusCode, Header: res.Header, Raw: body}
			require.NoError(t, json.Unmarshal(body, &r.Body), "%s", body)
			requireError(t, r, path, http.StatusForbidden, "CORS_NOT_ALLOWED")
			require.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
			require.Empty(t, res.Header.Get("Access-Control-Allow-Methods"))
		}
	})
	t.Run("keyed API: no origin allowed on answers", func(t *testing.T) {
		res, body := f.send(t, http.MethodGet, "/public/v3/organization", f.keys["viewer"], origin)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
		require.Empty(t, res.Header.Get("Access-Control-Allow-Origin"))
	})
	t.Run("public resources: any origin, GET and HEAD", func(t *testing.T) {
		for _, path := range []string{"/issuers/" + f.org.ID.String(), "/credentials/" + f.vars["{missing}"],
			"/status-lists/" + f.vars["{missing}"], "/public/v3/openapi.json"} {
			res, _ := f.send(t, http.MethodOptions, path, "", preflight(http.MethodGet, "accept"))
			require.Equal(t, http.StatusNoContent, res.StatusCode, path)
			require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"), path)
			require.Equal(t, "GET, HEAD", res.Header.Get("Access-Control-Allow-Methods"), path)
			get, _ := f.send(t, http.MethodGet, path, "", origin)
			require.Equal(t, "*", get.Header.Get("Access-Control-Allow-Origin"), path)
		}
	})
}
