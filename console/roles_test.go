package console_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/audit"
)

// issuanceOf issues one signed assertion and returns its issuance id.
func (f *fixture) issuanceOf(t *testing.T, name, email string) uuid.UUID {
	t.Helper()
	a := f.IssueSigned(t, name, email)
	var iss uuid.UUID
	require.NoError(t, f.DB.Pool.QueryRow(context.Background(), "SELECT issuance_id FROM assertions WHERE id = $1", a).Scan(&iss))
	return iss
}

// TestConsole_RoleMatrix: every console action, as a viewer, a manager and an owner: what each role may do
// succeeds (and leaves its audit row when it changes something); what it may not is 403 and changes nothing.
func TestConsole_RoleMatrix(t *testing.T) {
	f := newFixture(t)
	iss := f.issuanceOf(t, "Kim Minji", "minji@example.test").String()
	type action struct {
		name, method, path string
		form               func() url.Values
		min                string // the lowest role allowed
		ok                 int    // its status when allowed
		audit              string // the audit action it writes, if any
	}
	keyToRevoke := func() string {
		_, row := apitest.Key(t, f.DB, f.Org, apikey.RoleViewer, apikey.ModeTest)
		return row.ID.String()
	}
	var target string // a member to act on, made afresh for each try
	freshMember := func() url.Values {
		id, _, err := membershipAdd(f, "m-"+uuid.NewString()[:8]+"@acme.test", "ORG_VIEWER")
		require.NoError(t, err)
		target = id.String()
		return url.Values{"role": {"ORG_MANAGER"}}
	}
	actions := []action{
		{"list keys", "GET", "/console/keys", nil, "ORG_VIEWER", 200, ""},
		{"create key", "POST", "/console/keys", func() url.Values {
			return url.Values{"name": {"k"}, "role": {"ORG_VIEWER"}, "mode": {"test"}}
		}, "ORG_MANAGER", 201, audit.KeyCreate},
		{"revoke key", "POST", "/console/keys/{key}/revoke", func() url.Values { return url.Values{} }, "ORG_MANAGER", 303, audit.KeyRevoke},
		{"list members", "GET", "/console/members", nil, "ORG_VIEWER", 200, ""},
		{"invite", "POST", "/console/members", func() url.Values {
			return url.Values{"email": {"new-" + uuid.NewString()[:8] + "@acme.test"}, "role": {"ORG_VIEWER"}}
		}, "ORG_OWNER", 303, audit.MemberAdd},
		{"change role", "POST", "/console/members/{member}/role", freshMember, "ORG_OWNER", 303, audit.MemberRole},
		{"remove member", "POST", "/console/members/{member}/remove", freshMember, "ORG_OWNER", 303, audit.MemberRemove},
		{"list issuances", "GET", "/console/issuances", nil, "ORG_VIEWER", 200, ""},
		{"test issuances", "GET", "/console/issuances?mode=test", nil, "ORG_VIEWER", 200, ""},
		{"issuance", "GET", "/console/issuances/" + iss, nil, "ORG_VIEWER", 200, ""},
		{"results CSV", "GET", "/console/issuances/" + iss + "/recipients.csv", nil, "ORG_VIEWER", 200, ""},
		// No re-drive is wired into this server: allowed roles get 501, the others 403 before that.
		{"redrive", "POST", "/console/issuances/" + iss + "/redrive", func() url.Values { return url.Values{} }, "ORG_MANAGER", 501, ""},
		{"credits", "GET", "/console/credits", nil, "ORG_VIEWER", 200, ""},
		{"audit", "GET", "/console/audit", nil, "ORG_OWNER", 200, ""},
	}
	for _, who := range []struct{ email, role string }{{viewer, "ORG_VIEWER"}, {manager, "ORG_MANAGER"}, {owner, "ORG_OWNER"}} {
		for _, ac := range actions {
			t.Run(who.role+"/"+ac.name, func(t *testing.T) {
				path := ac.path
				var form url.Values
				if ac.form != nil {
					form = ac.form()
				}
				path = replace(path, "{key}", keyToRevoke)
				path = replace(path, "{member}", func() string { return target })
				before := len(f.auditActions(t, f.Org.ID)) // after the fixtures of this try were made
				a := f.do(t, who.email, ac.method, path, form)
				after := f.auditActions(t, f.Org.ID)
				if apikey.RoleRank(who.role) < apikey.RoleRank(ac.min) {
					require.Equal(t, http.StatusForbidden, a.status, a.body)
					require.Len(t, after, before, "a refused action leaves nothing")
					return
				}
				require.Equal(t, ac.ok, a.status, a.body)
				if ac.audit != "" {
					require.Len(t, after, before+1)
					require.Equal(t, ac.audit, after[0].Action)
					require.Equal(t, who.email, after[0].Actor)
					require.Equal(t, f.people[who.email], *after[0].PersonID)
				} else {
					require.Len(t, after, before, "a read leaves no row")
				}
			})
		}
	}
}

func replace(path, param string, value func() string) string {
	for i := 0; i+len(param) <= len(path); i++ {
		if path[i:i+len(param)] == param {
			return path[:i] + value() + path[i+len(param):]
		}
	}
	return path
}
