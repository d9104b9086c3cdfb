package api

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"
)

// TestOpenAPIDocument is the lint of the OpenAPI documents (make lint): each version's document loads and validates
// with kin-openapi, and its operations are exactly the routes of that version in the chi table.
func TestOpenAPIDocument(t *testing.T) {
	routes := versionRoutes(t)
	for _, v := range versions {
		t.Run(v.prefix(), func(t *testing.T) {
			raw, err := OpenAPIDocument(int(v))
			require.NoError(t, err)
			doc, err := openapi3.NewLoader().LoadFromData(raw)
			require.NoError(t, err)
			require.NoError(t, doc.Validate(context.Background()))
			require.Equal(t, "3.1.0", doc.OpenAPI)

			var missing []string
			documented := map[string]bool{}
			for path, item := range doc.Paths.Map() {
				prefix := v.prefix()
				if len(item.Servers) > 0 { // the wallet protocols name their own server: the service root
					prefix = strings.TrimSuffix(item.Servers[0].URL, "/")
				}
				for method := range item.Operations() {
					key := method + " " + prefix + path
					documented[key] = true
					if !routes[key] {
						missing = append(missing, key)
					}
				}
			}
			var undocumented []string
			for key := range routes {
				if strings.Contains(key, v.prefix()+"/") && !documented[key] {
					undocumented = append(undocumented, key)
				}
			}
			require.Empty(t, undocumented, "routes without an operation in api/openapi.yaml")
			require.Empty(t, missing, "operations of api/openapi.yaml without a route")
		})
	}
}

// versionRoutes lists "METHOD /path" of every route of the chi table ("/public/vN/…" for the versions' routes),
// path parameters as in OpenAPI.
func versionRoutes(t *testing.T) map[string]bool {
	mux, ok := NewHandler(Deps{}).(chi.Routes)
	require.True(t, ok)
	out := map[string]bool{}
	err := chi.Walk(mux, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.ReplaceAll(route, "/*/", "/") // a mounted version's routes sit below its "/*"
		if !strings.HasSuffix(route, "/*") {
			out[method+" "+route] = true
		}
		return nil
	})
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(mapKeys(out), func(k string) bool { return strings.HasPrefix(k, "GET /public/v3/") }))
	return out
}

func mapKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
