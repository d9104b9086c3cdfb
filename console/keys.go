package console

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/audit"
	"github.com/badged/badged/internal/safetext"
)

// maxKeyNameLen bounds a key's name (the column checks it too).
const maxKeyNameLen = 100

type keyRow struct {
	ID, Name, Prefix, Role, Mode, CreatedBy, Created, LastUsed, Revoked string
}

type keysPage struct {
	Keys  []keyRow
	Roles []string // the roles the actor may give a key: up to their own
}

// keysPage lists the organization's keys, live and test, revoked last. The key's text is never shown here: only
// its prefix, which is what a key in a log or a secret store starts with.
func (h *Handler) keysPage(w http.ResponseWriter, r *http.Request, a actor) error {
	rows, err := h.db.ListOrgAPIKeys(r.Context(), a.Org)
	if err != nil {
		return err
	}
	p := keysPage{Roles: rolesUpTo(a.Role)}
	for _, k := range rows {
		row := keyRow{ID: k.ID.String(), Name: k.Name, Prefix: apikey.Prefix(k.ID, k.Mode), Role: k.Role, Mode: k.Mode,
			Created: h.timeOf(k.CreatedAt), LastUsed: h.timeOfPtr(k.LastUsedAt), Revoked: h.timeOfPtr(k.RevokedAt)}
		if k.CreatedByEmail != nil {
			row.CreatedBy = *k.CreatedByEmail
		}
		p.Keys = append(p.Keys, row)
	}
	return h.render(w, http.StatusOK, "keys", h.newView(r, a, "keys", p))
}

// rolesUpTo are the roles no higher than role, lowest first.
func rolesUpTo(role string) []string {
	var out []string
	for _, r := range []string{apikey.RoleViewer, apikey.RoleManager, apikey.RoleOwner} {
		if apikey.RoleRank(r) <= apikey.RoleRank(role) {
			out = append(out, r)
		}
	}
	return out
}

type keyCreated struct {
	Key, Name, Role, Mode string
}

// createKey makes a key of the form's name, role (no higher than the actor's) and mode. Its full text is on the
// answer page and nowhere else: the database keeps its SHA-256 only (internal/apikey), and the page is not cached.
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, a actor) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	role, mode := r.PostFormValue("role"), r.PostFormValue("mode")
	switch {
	case name == "" || utf8.RuneCountInString(name) > maxKeyNameLen || safetext.Problem(name, safetext.Name) != "":
		return badInput("badName")
	case !apikey.ValidRole(role):
		return badInput("badRole")
	case apikey.RoleRank(role) > apikey.RoleRank(a.Role):
		return &pageError{http.StatusForbidden, "roleTooHigh"}
	case !apikey.ValidMode(mode):
		return badInput("badMode")
	}
	id := uuid.New()
	key, hash, err := apikey.New(id, mode)
	if err != nil {
		return err
	}
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		if _, err := q.CreateNamedAPIKey(r.Context(), db.CreateNamedAPIKeyParams{ID: id, OrgID: a.Org, KeyHash: hash,
			Role: role, Mode: mode, Name: name, CreatedBy: &a.Person}); err != nil {
			return err
		}
		return audit.Append(r.Context(), q, a.event(audit.KeyCreate, id.String(), role+" "+mode+" "+name))
	})
	if err != nil {
		return err
	}
	return h.render(w, http.StatusCreated, "key_created", h.newView(r, a, "keys", keyCreated{Key: key, Name: name, Role: role, Mode: mode}))
}

// revokeKey ends a key of the organization at once: the row is revoked before the answer, and this process's key
// cache is told; other API processes read the row again within API_KEY_CACHE_TTL (docs/security.md).
func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, a actor) error {
	id, err := uuid.Parse(chi.URLParam(r, "keyId"))
	if err != nil {
		return errNotFound
	}
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		if _, err := q.RevokeOrgAPIKey(r.Context(), db.RevokeOrgAPIKeyParams{ID: id, OrgID: a.Org}); err != nil {
			return err
		}
		return audit.Append(r.Context(), q, a.event(audit.KeyRevoke, id.String(), ""))
	})
	if db.IsNotFound(err) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	if h.keyRevoked != nil {
		h.keyRevoked(id)
	}
	http.Redirect(w, r, "/console/keys", http.StatusSeeOther)
	return nil
}
