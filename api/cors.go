package api

import (
	"net/http"
	"strings"

	"github.com/badged/badged/wallet"
)

// Browsers. This table is the one place that decides which paths a page of another origin may read, with which
// methods and request headers; a path it does not name gets no Access-Control-Allow-Origin, so no page can read it.
//
//   - The keyless public resources (credentials and their images, receipts and status; issuer documents, their
//     JWKS and well-known documents; status lists; media; badge pages; the OpenAPI documents): GET and HEAD from any
//     origin, so browser-based verifiers and wallets can fetch them.
//   - The wallet protocols: OpenID4VCI (the credential issuer and authorization server metadata, the offer URI, the
//     token, nonce, credential and notification endpoints) and the VC-API exchanges. Web wallets (LearnCard web,
//     the EUDI web wallets, CHAPI's) run in pages and call them from their own origin. Any origin may: no cookie
//     and no API key rides on them (credentials mode is never allowed); the offer URI, the pre-authorized code, the
//     access token and the exchange URL are the capabilities, each given to the holder alone. A credential or
//     notification request carries the access token (Authorization) and JSON (Content-Type), so a preflight is
//     answered for both; the 401 challenge (WWW-Authenticate) is exposed so the page can read why. DPoP is not
//     listed: the authorization server advertises no dpop_signing_alg_values_supported, so wallets send none.
//   - The keyed API (/public/v2, /public/v3) is not for browsers: an API key in a web page is a key given to every
//     visitor. Its CORS preflight is refused with 403 CORS_NOT_ALLOWED and its answers carry no
//     Access-Control-Allow-Origin, so a browser never lets a page read them.
type corsRule struct {
	prefixes []string // path prefixes the rule covers
	paths    []string // exact paths it covers
	methods  string   // Access-Control-Allow-Methods of a preflight
	headers  string   // Access-Control-Allow-Headers of a preflight
	expose   string   // Access-Control-Expose-Headers of every answer
}

var corsRules = []corsRule{
	{prefixes: []string{"/credentials/", "/issuers/", "/achievements/", "/status-lists/", "/media/", "/verify/"}, paths: openAPIPaths(),
		methods: "GET, HEAD", headers: "Accept, Accept-Language", expose: "Link, ETag, Content-Disposition, X-Request-Id"},
	{prefixes: []string{"/.well-known/openid-credential-issuer/", "/.well-known/oauth-authorization-server/",
		wallet.OID4VCIPrefix + "/", wallet.ExchangePrefix + "/"},
		methods: "GET, POST", headers: "Authorization, Content-Type, Accept, Accept-Language",
		expose: "WWW-Authenticate, Retry-After, X-Request-Id"},
}

// openAPIPaths are the OpenAPI documents of each API version.
func openAPIPaths() []string {
	out := make([]string, 0, len(versions))
	for _, v := range versions {
		out = append(out, v.prefix()+"/openapi.json")
	}
	return out
}

// corsRuleOf is the rule that covers path, or nil.
func corsRuleOf(path string) *corsRule {
	for i := range corsRules {
		c := &corsRules[i]
		for _, p := range c.prefixes {
			if strings.HasPrefix(path, p) {
				return c
			}
		}
		for _, p := range c.paths {
			if path == p {
				return c
			}
		}
	}
	return nil
}

// cors answers preflights and marks the paths of corsRules readable from any origin (see above).
func (h *handler) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		preflight := r.Method == http.MethodOptions && r.Header.Get("Origin") != "" &&
			r.Header.Get("Access-Control-Request-Method") != ""
		if c := corsRuleOf(r.URL.Path); c != nil {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Expose-Headers", c.expose)
			if preflight {
				w.Header().Set("Access-Control-Allow-Methods", c.methods)
				w.Header().Set("Access-Control-Allow-Headers", c.headers)
				w.Header().Set("Access-Control-Max-Age", "86400")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		} else if preflight && strings.HasPrefix(r.URL.Path, "/public/") {
			h.writeError(w, r, newError(codeCORS, "the keyed API does not answer browsers: an API key must not be "+
				"sent from a web page; call %s from your server", r.URL.Path))
			return
		}
		next.ServeHTTP(w, r)
	})
}
