package console

import (
	"net/http"

	"github.com/google/uuid"
)

// home sends a person to their organization's issuances, or to the picker when they belong to several and picked
// none.
func (h *Handler) home(w http.ResponseWriter, r *http.Request, a actor) error {
	if _, ok := pickMembership(r, a.Orgs); ok {
		http.Redirect(w, r, "/console/issuances", http.StatusSeeOther)
		return nil
	}
	if len(a.Orgs) == 0 {
		return errNoOrg
	}
	http.Redirect(w, r, "/console/orgs", http.StatusSeeOther)
	return nil
}

type orgChoice struct {
	ID, Name, Role string
}

func (h *Handler) orgsPage(w http.ResponseWriter, r *http.Request, a actor) error {
	var p []orgChoice
	for _, m := range a.Orgs {
		p = append(p, orgChoice{ID: m.OrgID.String(), Name: m.OrgName, Role: m.Role})
	}
	if m, ok := pickMembership(r, a.Orgs); ok {
		a.Org, a.OrgName, a.Role = m.OrgID, m.OrgName, m.Role
	}
	return h.render(w, http.StatusOK, "orgs", h.newView(r, a, "orgs", p))
}

// pickOrg remembers the organization picked, if the person is its member (else: not found).
func (h *Handler) pickOrg(w http.ResponseWriter, r *http.Request, a actor) error {
	id, err := uuid.Parse(r.PostFormValue("org"))
	if err != nil {
		return errNotFound
	}
	for _, m := range a.Orgs {
		if m.OrgID == id {
			http.SetCookie(w, &http.Cookie{Name: orgCookie, Value: id.String(), Path: "/console", HttpOnly: true,
				SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
			http.Redirect(w, r, "/console/issuances", http.StatusSeeOther)
			return nil
		}
	}
	return errNotFound
}
