package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"
)

// versionLabel is the API version label of the HTTP metrics: v2, v3, or none for the unversioned routes (health,
// media, credentials, verification pages). It is read from the path prefix because versionMiddleware sets the
// version on an inner context that the outer middleware never sees.
func versionLabel(path string) string {
	for _, v := range versions {
		if path == v.prefix() || strings.HasPrefix(path, v.prefix()+"/") {
			return "v" + strconv.Itoa(int(v))
		}
	}
	return "none"
}

// countRequests records each request in the HTTP metrics. The route pattern is read after next has run, once chi
// has matched it, so the label is the pattern (/public/v3/badges/{badgeId}), never the raw path with its ids.
func (h *handler) countRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		h.metrics.ObserveHTTP(routePattern(r), r.Method, status, versionLabel(r.URL.Path), time.Since(start))
	})
}
