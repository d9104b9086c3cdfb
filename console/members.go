package console

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/internal/membership"
)

type memberRow struct {
	PersonID, Email, Role, Since string
	Self                         bool
}

type membersPage struct {
	Members []memberRow
	Roles   []string
	Invited bool
}

func (h *Handler) membersPage(w http.ResponseWriter, r *http.Request, a actor) error {
	rows, err := h.db.ListMembers(r.Context(), a.Org)
	if err != nil {
		return err
	}
	p := membersPage{Roles: rolesUpTo("ORG_OWNER"), Invited: r.URL.Query().Get("invited") == "1"}
	for _, m := range rows {
		p.Members = append(p.Members, memberRow{PersonID: m.PersonID.String(), Email: m.Email, Role: m.Role,
			Since: h.timeOf(m.CreatedAt), Self: m.PersonID == a.Person})
	}
	return h.render(w, http.StatusOK, "members", h.newView(r, a, "members", p))
}

// inviteMember (owners) adds the address with the form's role and mails it a sign-in link: the invitation. The
// membership is made first, so the link signs the person straight into the organization.
func (h *Handler) inviteMember(w http.ResponseWriter, r *http.Request, a actor) error {
	email, err := membership.Email(r.PostFormValue("email"))
	if err != nil {
		return err
	}
	if _, _, err := membership.Add(r.Context(), h.db, a.Org, email, r.PostFormValue("role"), a.event("", "", "")); err != nil {
		return err
	}
	if err := h.signIn.Invite(r.Context(), r, email); err != nil {
		return err
	}
	http.Redirect(w, r, "/console/members?invited=1", http.StatusSeeOther)
	return nil
}

// changeRole (owners) gives a member another role; the last owner cannot be demoted (membership.ErrLastOwner).
func (h *Handler) changeRole(w http.ResponseWriter, r *http.Request, a actor) error {
	person, err := uuid.Parse(chi.URLParam(r, "personId"))
	if err != nil {
		return errNotFound
	}
	if err := membership.SetRole(r.Context(), h.db, a.Org, person, r.PostFormValue("role"), a.event("", "", "")); err != nil {
		return err
	}
	http.Redirect(w, r, "/console/members", http.StatusSeeOther)
	return nil
}

// removeMember (owners) ends a membership; the last owner stays.
func (h *Handler) removeMember(w http.ResponseWriter, r *http.Request, a actor) error {
	person, err := uuid.Parse(chi.URLParam(r, "personId"))
	if err != nil {
		return errNotFound
	}
	if err := membership.Remove(r.Context(), h.db, a.Org, person, a.event("", "", "")); err != nil {
		return err
	}
	http.Redirect(w, r, "/console/members", http.StatusSeeOther)
	return nil
}
