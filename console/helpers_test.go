package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/console"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/audit"
	"github.com/badged/badged/internal/membership"
)

// testSignIn is a test's sessions: the cookie "test_session" names the person; each person's CSRF token is fixed.
// It stands where the mail-link sign-in stands, through the same interface (console.SignIn).
type testSignIn struct{ invited []string }

func csrfOf(email string) string { return "csrf-" + email }

func (s *testSignIn) Current(r *http.Request) (console.Session, bool) {
	c, err := r.Cookie("test_session")
	if err != nil || c.Value == "" {
		return console.Session{}, false
	}
	return console.Session{Email: c.Value, CSRF: csrfOf(c.Value)}, true
}

func (s *testSignIn) Invite(_ context.Context, _ *http.Request, address string) error {
	s.invited = append(s.invited, address)
	return nil
}

func (s *testSignIn) Mount(r chi.Router) {
	r.Get("/sign-in", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "sign in") })
}

// fixture is the API with the console over apitest's two organizations, and people of each role.
type fixture struct {
	*apitest.Env
	srv    *httptest.Server
	signIn *testSignIn
	people map[string]uuid.UUID // by address
}

const (
	owner   = "owner@acme.test"
	manager = "manager@acme.test"
	viewer  = "viewer@acme.test"
	other   = "owner@other.test"
	multi   = "multi@both.test" // viewer of Acme, owner of Other
)

func newFixture(t *testing.T) *fixture { return newFixtureTB(t) }

func newFixtureTB(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{Env: apitest.New(t), signIn: &testSignIn{}, people: map[string]uuid.UUID{}}
	f.srv = f.ConsoleServer(t, f.signIn)
	for _, m := range []struct {
		org   db.Organization
		email string
		role  string
	}{
		{f.Org, owner, "ORG_OWNER"}, {f.Org, manager, "ORG_MANAGER"}, {f.Org, viewer, "ORG_VIEWER"},
		{f.Other, other, "ORG_OWNER"}, {f.Org, multi, "ORG_VIEWER"}, {f.Other, multi, "ORG_OWNER"},
	} {
		id, _, err := membership.Add(context.Background(), f.DB, m.org.ID, m.email, m.role, audit.Event{Actor: audit.AdminActor})
		require.NoError(t, err)
		f.people[m.email] = id
	}
	return f
}

type answer struct {
	status   int
	body     string
	location string
}

// do sends a request as who ("" : nobody signed in); a form is posted with who's CSRF token unless it has one.
func (f *fixture) do(t *testing.T, who, method, path string, form url.Values, cookies ...*http.Cookie) answer {
	t.Helper()
	var body io.Reader
	if form != nil {
		if _, ok := form["csrf"]; !ok {
			form.Set("csrf", csrfOf(who))
		}
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, f.srv.URL+path, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if who != "" {
		req.AddCookie(&http.Cookie{Name: "test_session", Value: who})
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return answer{status: res.StatusCode, body: string(raw), location: res.Header.Get("Location")}
}

func (f *fixture) get(t *testing.T, who, path string) answer {
	return f.do(t, who, http.MethodGet, path, nil)
}

func (f *fixture) post(t *testing.T, who, path string, form url.Values) answer {
	if form == nil {
		form = url.Values{}
	}
	return f.do(t, who, http.MethodPost, path, form)
}

// auditActions are the organization's audit actions, newest first.
func (f *fixture) auditActions(t *testing.T, org uuid.UUID) []db.AuditEvent {
	t.Helper()
	rows, err := f.DB.ListAudit(context.Background(), db.ListAuditParams{OrgID: org, Limit: 1000})
	require.NoError(t, err)
	return rows
}

// membershipAdd makes address a member of Acme with role, as badged admin would.
func membershipAdd(f *fixture, address, role string) (uuid.UUID, string, error) {
	return membership.Add(context.Background(), f.DB, f.Org.ID, address, role, audit.Event{Actor: audit.AdminActor})
}
