package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"
)

// uuidValue wraps a parsed path id so handlers read it as .UUID.
type uuidValue struct{ uuid.UUID }

// logAttrs collects attributes learned while a request runs (org, key), for the one access-log line at its end.
type logAttrs struct {
	mu    sync.Mutex
	attrs []any
}

type logAttrsKey struct{}

// setLogAttrs adds key/value pairs to the request's access-log line.
func setLogAttrs(ctx context.Context, kv ...any) {
	if la, ok := ctx.Value(logAttrsKey{}).(*logAttrs); ok {
		la.mu.Lock()
		la.attrs = append(la.attrs, kv...)
		la.mu.Unlock()
	}
}

// logRequests writes one structured line per request with the request id, the route pattern and the outcome.
// The request id is echoed in X-Request-Id so a client can quote it.
func (h *handler) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		reqID := middleware.GetReqID(r.Context())
		w.Header().Set("X-Request-Id", reqID)
		la := &logAttrs{}
		ctx := context.WithValue(r.Context(), logAttrsKey{}, la)
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r.WithContext(ctx))
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		level := slog.LevelInfo
		switch {
		case status >= 500:
			level = slog.LevelError
		case status < 400 && isProbe(r):
			// A balancer's health checks every second or two were 44% of the log lines; answered, they say nothing
			// (the metrics still count them). A failing one stays at Warn/Error above.
			level = slog.LevelDebug
		}
		attrs := []any{"request_id", reqID, "method", r.Method, "route", routePattern(r), "status", status,
			"bytes", ww.BytesWritten(), "duration_ms", time.Since(start).Milliseconds()}
		// The ids in the path (issuanceId, assertionId, badgeId…), under the route's own names, so a line is found
		// by the id an operator holds; the route label above stays a pattern.
		if rc := chi.RouteContext(r.Context()); rc != nil {
			for i, k := range rc.URLParams.Keys {
				if k != "version" && k != "*" && i < len(rc.URLParams.Values) {
					attrs = append(attrs, k, truncate(rc.URLParams.Values[i], 100))
				}
			}
		}
		la.mu.Lock()
		attrs = append(attrs, la.attrs...)
		la.mu.Unlock()
		h.log.Log(r.Context(), level, "http request", attrs...)
	})
}

// isProbe reports whether r is a load balancer's or orchestrator's health check (GET or HEAD of /healthz or /readyz).
func isProbe(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && (r.URL.Path == "/healthz" || r.URL.Path == "/readyz")
}

// recoverer turns a panic into the contract's 500 body and logs the stack; the server keeps running.
func (h *handler) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if rec := recover(); rec != nil {
				if rec == http.ErrAbortHandler {
					panic(rec)
				}
				h.log.ErrorContext(r.Context(), "panic", "request_id", middleware.GetReqID(r.Context()),
					"panic", fmt.Sprint(rec), "stack", string(debug.Stack()))
				h.writeError(w, r, fmt.Errorf("panic: %v", rec))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// securityHeaders sets headers that cost nothing on a JSON API and protect the HTML and image routes.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// truncate bounds a client-controlled string in a log line.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
