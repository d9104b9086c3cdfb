package api

import (
	"context"
	"net/http"
	"time"
)

// healthz answers while the process runs.
func (h *handler) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, h.log, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 only when the database answers, so a load balancer stops sending traffic otherwise.
func (h *handler) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := h.db.Ping(ctx); err != nil {
		h.log.WarnContext(r.Context(), "not ready", "err", err)
		writeJSON(w, h.log, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "down"})
		return
	}
	writeJSON(w, h.log, http.StatusOK, map[string]string{"status": "ok", "database": "up"})
}
