package console

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/audit"
)

// assertionAction (managers) cancels or reissues one assertion of the organization through the API's own
// operation (Deps.Assertions), acting in the assertion's mode with the member's role; the API's refusal (a state
// that cannot be cancelled, say) is shown with its code.
func (h *Handler) assertionAction(w http.ResponseWriter, r *http.Request, a actor) error {
	if h.assertions == nil {
		return &pageError{http.StatusNotImplemented, "noRedrive"}
	}
	id, err := uuid.Parse(chi.URLParam(r, "assertionId"))
	if err != nil {
		return errNotFound
	}
	ref, err := h.db.GetOrgAssertionRef(r.Context(), db.GetOrgAssertionRefParams{OrgID: a.Org, ID: id})
	if db.IsNotFound(err) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	action := chi.URLParam(r, "action")
	res, err := h.assertions(r.Context(), Principal{Org: a.Org, OrgName: a.OrgName, Role: a.Role, Mode: ref.Mode}, id, action)
	if err != nil {
		return err
	}
	if res.Status >= 300 {
		return &apiRefusal{status: res.Status, code: res.Code, message: res.Message}
	}
	name := audit.AssertionCancel
	if action == "reissue" {
		name = audit.AssertionRenew
	}
	if err := audit.Append(r.Context(), h.db, a.event(name, id.String(), ref.Mode)); err != nil {
		return err
	}
	http.Redirect(w, r, "/console/issuances/"+ref.IssuanceID.String(), http.StatusSeeOther)
	return nil
}

// apiRefusal is the API's answer to an operation the console ran for a member: shown with the API's code.
type apiRefusal struct {
	status        int
	code, message string
}

func (e *apiRefusal) Error() string { return e.code + ": " + e.message }
