package api

import "net/http"

type organizationResponse struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	RoleCode string `json:"roleCode"`
}

// getOrganization answers the key's organization and role: a first connection check for integrators.
func (h *handler) getOrganization(w http.ResponseWriter, r *http.Request) error {
	p := principalOf(r.Context())
	h.ok(w, organizationResponse{ID: p.OrgID.String(), Name: p.OrgName, RoleCode: p.Role})
	return nil
}
