package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/audit"
)

var keyText = regexp.MustCompile(`bdg_(live|test)_[0-9a-f]{32}_[A-Za-z0-9_-]{43}`)

// TestConsole_KeyLifecycle: a manager creates a live manager key; its text is on the answer page only (the list
// shows its prefix); the key works on /public/v3/organization and its last use shows; revoked in the console it
// answers 401 on the next request, though the API caches keys for a minute; a key above the creator's role is
// refused; each creation and revocation leaves an audit row with the person and address.
func TestConsole_KeyLifecycle(t *testing.T) {
	f := newFixture(t)
	a := f.post(t, manager, "/console/keys", url.Values{"name": {"CI pipeline"}, "role": {"ORG_MANAGER"}, "mode": {"live"}})
	require.Equal(t, http.StatusCreated, a.status, a.body)
	key := keyText.FindString(a.body)
	require.NotEmpty(t, key, a.body)

	r := f.Request(t, http.MethodGet, "/public/v3/organization", key, "", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)

	list := f.get(t, viewer, "/console/keys")
	require.Equal(t, http.StatusOK, list.status)
	require.NotContains(t, list.body, key, "the full key is shown once")
	require.Empty(t, keyText.FindString(list.body))
	require.Contains(t, list.body, "CI pipeline")
	require.Contains(t, list.body, key[:len("bdg_live_")+8], "the prefix names it")
	require.Contains(t, list.body, manager, "who created it")
	require.NotContains(t, list.body, `/revoke"`, "a viewer is offered no revocation")
	require.NotContains(t, list.body, `action="/console/keys"`, "nor a creation")

	id := strings.ReplaceAll(strings.Split(key, "_")[2], "", "")
	id = id[0:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:]
	rv := f.post(t, manager, "/console/keys/"+id+"/revoke", nil)
	require.Equal(t, http.StatusSeeOther, rv.status, rv.body)
	r = f.Request(t, http.MethodGet, "/public/v3/organization", key, "", nil)
	require.Equal(t, http.StatusUnauthorized, r.Status, "revoked at once, through the key cache")

	high := f.post(t, manager, "/console/keys", url.Values{"name": {"too high"}, "role": {"ORG_OWNER"}, "mode": {"live"}})
	require.Equal(t, http.StatusForbidden, high.status)
	for _, bad := range []url.Values{
		{"name": {""}, "role": {"ORG_VIEWER"}, "mode": {"live"}},
		{"name": {"a\nb"}, "role": {"ORG_VIEWER"}, "mode": {"live"}},
		{"name": {"x"}, "role": {"ADMIN"}, "mode": {"live"}},
		{"name": {"x"}, "role": {"ORG_VIEWER"}, "mode": {"prod"}},
	} {
		require.Equal(t, http.StatusBadRequest, f.post(t, manager, "/console/keys", bad).status, bad)
	}

	rows := f.auditActions(t, f.Org.ID)
	require.Equal(t, audit.KeyRevoke, rows[0].Action)
	require.Equal(t, id, rows[0].Target)
	require.Equal(t, audit.KeyCreate, rows[1].Action)
	for _, e := range rows[:2] {
		require.Equal(t, manager, e.Actor)
		require.NotNil(t, e.PersonID)
		require.Equal(t, "127.0.0.1", e.ClientAddr)
	}
}
