package api

import "net/http"

// serviceRoot answers GET /: the service's short page (catalog.Root), the url of test-mode issuers.
func (h *handler) serviceRoot(w http.ResponseWriter, r *http.Request) error {
	return h.catalog.Root(w, r)
}
