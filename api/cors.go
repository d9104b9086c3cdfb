package api

import (
	"net/http"
	"strings"
)

// Browsers: the keyless public resources (credentials and their images, receipts and status; issuer documents;
// status lists; media; badge pages; the OpenAPI documents) may be read from any origin with GET or HEAD, so
// browser-based verifiers and wallets can fetch them. The keyed API (/public/v2, /public/v3) is not for browsers:
// an API key in a web page is a key given to every visitor. Its CORS preflight is refused with 403
// CORS_NOT_ALLOWED and its answers carry no Access-Control-Allow-Origin, so a browser never lets a page read them.
// The VC-API exchanges (/exchanges/…) take POSTs from any origin: web wallets run in pages.

// corsPublicPrefixes are the keyless resources any origin may read.
var corsPublicPrefixes = []string{"/credentials/", "/issuers/", "/status-lists/", "/media/", "/verify/"}

// corsPublic reports whether path is a keyless resource any origin may read.
func corsPublic(path string) bool {
	for _, p := range corsPublicPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	for _, v := range versions {
		if path == v.prefix()+"/openapi.json" {
			return true
		}
	}
	return false
}

// cors answers preflights and marks the public resources readable from any origin (see above).
func (h *handler) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		preflight := r.Method == http.MethodOptions && r.Header.Get("Origin") != "" &&
			r.Header.Get("Access-Control-Request-Method") != ""
		switch {
		case corsPublic(r.URL.Path):
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Expose-Headers", "Link, ETag, Content-Disposition, X-Request-Id")
			if preflight {
				w.Header().Set("Access-Control-Allow-Methods", "GET, HEAD")
				w.Header().Set("Access-Control-Allow-Headers", "Accept, Accept-Language")
				w.Header().Set("Access-Control-Max-Age", "86400")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		case strings.HasPrefix(r.URL.Path, exchangePrefix+"/"):
			// VC-API exchanges: web wallets (CHAPI's) post to them from their own origin. No key and no cookie
			// rides on them (the exchange URL is the capability), so any origin may.
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Expose-Headers", "X-Request-Id, Retry-After")
			if preflight {
				w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
				w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Accept")
				w.Header().Set("Access-Control-Max-Age", "86400")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		case preflight && strings.HasPrefix(r.URL.Path, "/public/"):
			h.writeError(w, r, newError(codeCORS, "the keyed API does not answer browsers: an API key must not be "+
				"sent from a web page; call %s from your server", r.URL.Path))
			return
		}
		next.ServeHTTP(w, r)
	})
}
