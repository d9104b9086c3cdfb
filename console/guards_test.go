package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/internal/apikey"
)

// TestConsole_CrossOrg: another organization's key, member and issuance answer 404 to an owner of Acme, and
// nothing of theirs changes.
func TestConsole_CrossOrg(t *testing.T) {
	f := newFixture(t)
	_, otherKey := apitest.Key(t, f.DB, f.Other, apikey.RoleViewer, apikey.ModeLive)
	iss := f.issuanceOf(t, "Lee Jun", "jun@example.test").String() // Acme's
	for _, tc := range []struct{ who, method, path string }{
		{owner, "POST", "/console/keys/" + otherKey.ID.String() + "/revoke"},
		{owner, "POST", "/console/members/" + f.people[other].String() + "/role"},
		{owner, "POST", "/console/members/" + f.people[other].String() + "/remove"},
		{other, "GET", "/console/issuances/" + iss},
		{other, "GET", "/console/issuances/" + iss + "/recipients.csv"},
		{owner, "GET", "/console/issuances/not-an-id"},
		{owner, "POST", "/console/keys/not-an-id/revoke"},
	} {
		var form url.Values
		if tc.method == "POST" {
			form = url.Values{"role": {"ORG_VIEWER"}}
		}
		a := f.do(t, tc.who, tc.method, tc.path, form)
		require.Equal(t, http.StatusNotFound, a.status, "%s %s", tc.method, tc.path)
	}
	k, err := f.DB.GetAPIKey(context.Background(), otherKey.ID)
	require.NoError(t, err)
	require.Nil(t, k.RevokedAt)
	m, err := f.DB.ListMembers(context.Background(), f.Other.ID)
	require.NoError(t, err)
	require.Len(t, m, 2)
	require.NotContains(t, f.get(t, other, "/console/keys").body, "Acme")
}

// TestConsole_CSRF: a form without the session's token, or with another's, is refused (403) and changes nothing;
// without a session a page sends to the sign-in form and a post is refused.
func TestConsole_CSRF(t *testing.T) {
	f := newFixture(t)
	before := len(f.auditActions(t, f.Org.ID))
	for _, token := range []string{"", "forged", csrfOf(viewer)} {
		a := f.post(t, owner, "/console/keys", url.Values{"csrf": {token}, "name": {"k"}, "role": {"ORG_VIEWER"}, "mode": {"live"}})
		require.Equal(t, http.StatusForbidden, a.status, token)
		a = f.post(t, owner, "/console/members", url.Values{"csrf": {token}, "email": {"x@acme.test"}, "role": {"ORG_OWNER"}})
		require.Equal(t, http.StatusForbidden, a.status, token)
	}
	require.Len(t, f.auditActions(t, f.Org.ID), before)

	a := f.get(t, "", "/console/keys")
	require.Equal(t, http.StatusSeeOther, a.status)
	require.Equal(t, "/console/sign-in", a.location)
	a = f.do(t, "", http.MethodPost, "/console/keys", url.Values{"csrf": {""}, "name": {"k"}, "role": {"ORG_VIEWER"}, "mode": {"live"}})
	require.Equal(t, http.StatusForbidden, a.status)

	// A viewer's forged post with their own valid token is refused by role.
	a = f.post(t, viewer, "/console/keys", url.Values{"name": {"k"}, "role": {"ORG_VIEWER"}, "mode": {"live"}})
	require.Equal(t, http.StatusForbidden, a.status)
	require.Len(t, f.auditActions(t, f.Org.ID), before)
}

// TestConsole_LastOwner: the only owner can neither demote nor remove themselves; once a second owner exists, one
// of them may go.
func TestConsole_LastOwner(t *testing.T) {
	f := newFixture(t)
	self := "/console/members/" + f.people[owner].String()
	require.Equal(t, http.StatusConflict, f.post(t, owner, self+"/role", url.Values{"role": {"ORG_MANAGER"}}).status)
	require.Equal(t, http.StatusConflict, f.post(t, owner, self+"/remove", nil).status)
	require.Equal(t, http.StatusSeeOther, f.post(t, owner, "/console/members/"+f.people[manager].String()+"/role",
		url.Values{"role": {"ORG_OWNER"}}).status)
	require.Equal(t, http.StatusSeeOther, f.post(t, owner, self+"/role", url.Values{"role": {"ORG_MANAGER"}}).status)
	require.Equal(t, http.StatusConflict, f.post(t, manager, "/console/members/"+f.people[manager].String()+"/remove", nil).status,
		"the new owner is now the last")
}

// TestConsole_Invite: an owner's invitation makes the membership and mails the address a sign-in link; the invited
// person then acts with the role given, and a bad address is refused.
func TestConsole_Invite(t *testing.T) {
	f := newFixture(t)
	a := f.post(t, owner, "/console/members", url.Values{"email": {"New.Viewer@Acme.test"}, "role": {"ORG_VIEWER"}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.Equal(t, []string{"new.viewer@acme.test"}, f.signIn.invited)
	keys := f.get(t, "new.viewer@acme.test", "/console/keys")
	require.Equal(t, http.StatusOK, keys.status)
	require.NotContains(t, keys.body, `action="/console/keys"`)
	require.Equal(t, http.StatusForbidden, f.post(t, "new.viewer@acme.test", "/console/keys",
		url.Values{"name": {"k"}, "role": {"ORG_VIEWER"}, "mode": {"live"}}).status)
	require.Equal(t, http.StatusBadRequest, f.post(t, owner, "/console/members", url.Values{"email": {"nope"}, "role": {"ORG_VIEWER"}}).status)
	require.Equal(t, http.StatusBadRequest, f.post(t, owner, "/console/members", url.Values{"email": {"a@b.test"}, "role": {"GOD"}}).status)
}

// TestConsole_PickOrg: a person of two organizations picks one; the pick is checked against their memberships on
// every request (a cookie naming another organization picks nothing), and the role is that organization's.
func TestConsole_PickOrg(t *testing.T) {
	f := newFixture(t)
	a := f.get(t, multi, "/console/keys")
	require.Equal(t, http.StatusSeeOther, a.status)
	require.Equal(t, "/console/orgs", a.location)
	orgs := f.get(t, multi, "/console/orgs")
	require.Contains(t, orgs.body, "Acme Academy")
	require.Contains(t, orgs.body, "Other Org")

	a = f.post(t, multi, "/console/orgs", url.Values{"org": {f.Other.ID.String()}})
	require.Equal(t, http.StatusSeeOther, a.status)
	pick := &http.Cookie{Name: "console_org", Value: f.Other.ID.String()}
	audit := f.do(t, multi, http.MethodGet, "/console/audit", nil, pick)
	require.Equal(t, http.StatusOK, audit.status, "owner of Other")
	acme := &http.Cookie{Name: "console_org", Value: f.Org.ID.String()}
	require.Equal(t, http.StatusForbidden, f.do(t, multi, http.MethodGet, "/console/audit", nil, acme).status, "viewer of Acme")
	require.Equal(t, http.StatusNotFound, f.post(t, owner, "/console/orgs", url.Values{"org": {f.Other.ID.String()}}).status)
	forged := f.do(t, owner, http.MethodGet, "/console/keys", nil, pick)
	require.Equal(t, http.StatusOK, forged.status)
	require.True(t, strings.Contains(forged.body, "Acme Academy"), "a cookie of another organization picks nothing")
}
