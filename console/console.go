// Package console is the organization's web console at /console (issue 30): people who signed in by mail link
// see and act on their organization by the role their membership gives them: API keys, members, issuances and
// their failures, credits and the audit trail. It is server-rendered and works without JavaScript; every request
// checks the role server-side, every form carries the session's CSRF token, and another organization's ids answer
// not found. api mounts it.
package console

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/audit"
)

// Deps are what the console needs.
type Deps struct {
	DB     *db.DB
	SignIn SignIn
	Log    *slog.Logger
	// KeyRevoked is told each key the console revokes, so this process's key cache forgets it at once (api's
	// keycache); nil: nothing to tell.
	KeyRevoked func(uuid.UUID)
	// Redrive re-runs the retryable failures of an issuance (temporal.Redriver: the issuance workflow's redrive
	// Update while it is open, else temporal.Redrive with the worker's policy); nil: the console offers no re-drive.
	Redrive  func(ctx context.Context, issuance uuid.UUID) (string, error)
	Location *time.Location // times are shown in it; nil: UTC
	// Assertions runs the API's cancel and reissue of one assertion (api provides it); nil: the console offers
	// neither.
	Assertions AssertionAction
}

// Handler serves /console.
type Handler struct {
	db         *db.DB
	signIn     SignIn
	log        *slog.Logger
	keyRevoked func(uuid.UUID)
	redrive    func(context.Context, uuid.UUID) (string, error)
	loc        *time.Location
	assertions AssertionAction
}

// New returns the console's handler; mount it at /console.
func New(d Deps) *Handler {
	h := &Handler{db: d.DB, signIn: d.SignIn, log: d.Log, keyRevoked: d.KeyRevoked, redrive: d.Redrive, loc: d.Location,
		assertions: d.Assertions}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.loc == nil {
		h.loc = time.UTC
	}
	return h
}

// Router returns the console's routes, relative to /console. Each names the lowest role it needs: the check is
// made here, on every request, whatever the pages show.
func (h *Handler) Router() http.Handler {
	r := chi.NewRouter()
	if m, ok := h.signIn.(*MailSignIn); ok {
		m.h = h // its pages are the console's
	}
	r.NotFound(func(w http.ResponseWriter, r *http.Request) { h.notFound(w, r) })
	h.signIn.Mount(r)
	r.Get("/", h.signedIn(h.home))
	r.Get("/orgs", h.signedIn(h.orgsPage))
	r.Post("/orgs", h.signedIn(h.pickOrg))

	r.Get("/keys", h.member(apikey.RoleViewer, h.keysPage))
	r.Post("/keys", h.member(apikey.RoleManager, h.createKey))
	r.Post("/keys/{keyId}/revoke", h.member(apikey.RoleManager, h.revokeKey))

	r.Get("/members", h.member(apikey.RoleViewer, h.membersPage))
	r.Post("/members", h.member(apikey.RoleOwner, h.inviteMember))
	r.Post("/members/{personId}/role", h.member(apikey.RoleOwner, h.changeRole))
	r.Post("/members/{personId}/remove", h.member(apikey.RoleOwner, h.removeMember))

	r.Get("/issuances", h.member(apikey.RoleViewer, h.issuancesPage))
	r.Get("/issuances/{issuanceId}", h.member(apikey.RoleViewer, h.issuancePage))
	r.Get("/issuances/{issuanceId}/recipients.csv", h.member(apikey.RoleViewer, h.recipientsCSV))
	r.Post("/issuances/{issuanceId}/redrive", h.member(apikey.RoleManager, h.redriveIssuance))

	r.Post("/assertions/{assertionId}/{action:cancel|reissue}", h.member(apikey.RoleManager, h.assertionAction))

	r.Get("/credits", h.member(apikey.RoleViewer, h.creditsPage))
	r.Get("/audit", h.member(apikey.RoleOwner, h.auditPage))
	return r
}

// actor is the signed-in person acting in one organization.
type actor struct {
	Session
	Person  uuid.UUID
	Org     uuid.UUID
	OrgName string
	Role    string
	Orgs    []db.ListMembershipsOfPersonRow // every organization the person may pick
	Addr    string                          // the client's address, for the audit trail
}

// can reports whether the actor's role is at least min.
func (a actor) can(min string) bool { return apikey.RoleRank(a.Role) >= apikey.RoleRank(min) }

// event is the audit row of what the actor does.
func (a actor) event(action, target, detail string) audit.Event {
	p := a.Person
	return audit.Event{Org: a.Org, Person: &p, Actor: a.Email, Action: action, Target: target, Detail: detail, Addr: a.Addr}
}

type actorFunc func(w http.ResponseWriter, r *http.Request, a actor) error

// signedIn lets signed-in people through (to the sign-in form otherwise) and checks the CSRF token of every POST.
func (h *Handler) signedIn(fn actorFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok := h.signIn.Current(r)
		if !ok {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/console/sign-in", http.StatusSeeOther)
				return
			}
			h.fail(w, r, errForbidden)
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		}
		if r.Method == http.MethodPost && !validCSRF(r, s) {
			h.fail(w, r, errCSRF)
			return
		}
		a := actor{Session: s, Addr: clientAddr(r)}
		p, err := h.db.GetPersonByEmail(r.Context(), s.Email)
		if err == nil {
			a.Person = p.ID
			a.Orgs, err = h.db.ListMembershipsOfPerson(r.Context(), p.ID)
		} else if db.IsNotFound(err) {
			err = nil // signed in, member of nothing (yet)
		}
		if err == nil {
			err = fn(w, r, a)
		}
		if err != nil {
			h.fail(w, r, err)
		}
	}
}

// member lets through a member of the chosen organization whose role is at least min. The organization is the
// one picked (orgCookie) among the person's memberships, or the only one; a person of several who picked none
// goes to the picker. Nothing here trusts the cookie: it only chooses among memberships read on this request.
func (h *Handler) member(min string, fn actorFunc) http.HandlerFunc {
	return h.signedIn(func(w http.ResponseWriter, r *http.Request, a actor) error {
		m, ok := pickMembership(r, a.Orgs)
		if !ok {
			if len(a.Orgs) == 0 {
				return errNoOrg
			}
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/console/orgs", http.StatusSeeOther)
				return nil
			}
			return errForbidden
		}
		a.Org, a.OrgName, a.Role = m.OrgID, m.OrgName, m.Role
		if !a.can(min) {
			return errForbidden
		}
		return fn(w, r, a)
	})
}

// orgCookie holds the organization the person picked; a preference, checked against memberships on every request.
const orgCookie = "console_org"

func pickMembership(r *http.Request, orgs []db.ListMembershipsOfPersonRow) (db.ListMembershipsOfPersonRow, bool) {
	if c, err := r.Cookie(orgCookie); err == nil {
		if id, err := uuid.Parse(c.Value); err == nil {
			for _, m := range orgs {
				if m.OrgID == id {
					return m, true
				}
			}
		}
	}
	if len(orgs) == 1 {
		return orgs[0], true
	}
	return db.ListMembershipsOfPersonRow{}, false
}

// maxFormBytes bounds a console form: a few short fields.
const maxFormBytes = 16 << 10

// csrfField is the form field every console form carries.
const csrfField = "csrf"

func validCSRF(r *http.Request, s Session) bool {
	got := r.PostFormValue(csrfField)
	return s.CSRF != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.CSRF)) == 1
}

// clientAddr is the request's remote address without its port: the peer's address (a proxy in front of badged
// is what the trail then names).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
