package earner

import (
	"net/http"
	"regexp"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/web"
)

// handleRE is a handle: 3 to 30 of a-z, 0-9 and hyphens, a letter or digit at each end (the table's CHECK too).
var handleRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,28}[a-z0-9]$`)

// setBadgePrefs saves one badge's two choices (checkboxes: absent is off). Only a credential of the signed-in
// address: another's id answers as an unknown one (404 page), and nothing is written.
func (h *Handler) setBadgePrefs(w http.ResponseWriter, r *http.Request) error {
	sess, ok := h.session(w, r)
	if !ok {
		return nil
	}
	id, err := web.ParseUUID(r.PathValue("assertionId"))
	if err != nil {
		return h.notice(w, r, http.StatusNotFound, "notfound", "err_notfound", "", Prefix, "home")
	}
	_, err = h.d.DB.SetEarnerBadgePrefs(r.Context(), db.SetEarnerBadgePrefsParams{AssertionID: id, Email: sess.Email,
		ShowOnProfile: r.PostFormValue("show") == "1", PagePrivate: r.PostFormValue("private") == "1"})
	if db.IsNotFound(err) {
		return h.notice(w, r, http.StatusNotFound, "notfound", "err_notfound", "", Prefix, "home")
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, Prefix+"#b-"+id.String(), http.StatusSeeOther)
	return nil
}

// setProfile saves the handle and whether the profile is public. A bad or taken handle, or public without a
// handle, answers the collection with the reason (400 or 409) and writes nothing.
func (h *Handler) setProfile(w http.ResponseWriter, r *http.Request) error {
	sess, ok := h.session(w, r)
	if !ok {
		return nil
	}
	handle := r.PostFormValue("handle")
	public := r.PostFormValue("public") == "1"
	var hp *string
	switch {
	case handle == "" && public:
		return h.collection(w, r, sess, http.StatusBadRequest, "prof_needhandle")
	case handle == "":
	case !handleRE.MatchString(handle):
		return h.collection(w, r, sess, http.StatusBadRequest, "prof_bad")
	default:
		hp = &handle
	}
	_, err := h.d.DB.SetEarnerProfile(r.Context(), db.SetEarnerProfileParams{Email: sess.Email, Handle: hp, Public: public})
	if db.IsUniqueViolation(err) {
		return h.collection(w, r, sess, http.StatusConflict, "prof_taken")
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, Prefix+"#profile", http.StatusSeeOther)
	return nil
}
