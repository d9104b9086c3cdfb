package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/audit"
)

// TestAdminMember: `admin org create --owner-email` makes the first owner, `admin member add` adds people with a
// role (an address is one person whatever its case), bad input is refused, and every org, member and key action of
// badged admin leaves its audit row; the trail refuses UPDATE and DELETE.
func TestAdminMember(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	vars := map[string]string{"DATABASE_URL": dbtest.URL(t, d), "LOG_LEVEL": "error"}
	env := func(k string) string { return vars[k] }
	admin := func(args ...string) (map[string]any, error) {
		var out bytes.Buffer
		if err := run(ctx, append([]string{"admin"}, args...), env, &out, &bytes.Buffer{}); err != nil {
			return nil, err
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &m), out.String())
		return m, nil
	}

	org, err := admin("org", "create", "--name", "Hanbit", "--owner-email", "Owner@Hanbit.example")
	require.NoError(t, err)
	orgID := org["id"].(string)
	owner := org["owner"].(map[string]any)
	require.Equal(t, "owner@hanbit.example", owner["email"])
	require.Equal(t, "ORG_OWNER", owner["role"])

	m, err := admin("member", "add", "--org", orgID, "--email", "viewer@hanbit.example", "--role", "ORG_VIEWER")
	require.NoError(t, err)
	require.Equal(t, "ORG_VIEWER", m["role"])
	again, err := admin("member", "add", "--org", orgID, "--email", "VIEWER@hanbit.example", "--role", "ORG_OWNER")
	require.NoError(t, err)
	require.Equal(t, m["personId"], again["personId"], "one address, one person")
	require.Equal(t, "ORG_VIEWER", again["role"], "adding an existing member keeps their role")

	for _, args := range [][]string{
		{"--org", orgID, "--email", "not an address", "--role", "ORG_VIEWER"},
		{"--org", orgID, "--email", "Name <a@b.example>", "--role", "ORG_VIEWER"},
		{"--org", orgID, "--email", "a@b.example", "--role", "ADMIN"},
		{"--org", uuid.NewString(), "--email", "a@b.example", "--role", "ORG_VIEWER"},
		{"--org", "x", "--email", "a@b.example", "--role", "ORG_VIEWER"},
	} {
		_, err := admin(append([]string{"member", "add"}, args...)...)
		require.Error(t, err, args)
	}
	_, err = admin("org", "create", "--name", "X", "--owner-email", "nope")
	require.ErrorContains(t, err, "--owner-email")

	k, err := admin("key", "create", "--org", orgID, "--role", "ORG_MANAGER")
	require.NoError(t, err)
	_, err = admin("key", "revoke", "--id", k["id"].(string))
	require.NoError(t, err)
	_, err = admin("credits", "grant", "--org", orgID, "--amount", "5")
	require.NoError(t, err)

	rows, err := d.ListAudit(ctx, dbListAudit(orgID))
	require.NoError(t, err)
	var actions []string
	for _, r := range rows {
		require.Equal(t, audit.AdminActor, r.Actor)
		require.Nil(t, r.PersonID)
		actions = append(actions, r.Action)
	}
	require.Equal(t, []string{audit.CreditsGrant, audit.KeyRevoke, audit.KeyCreate, audit.MemberAdd, audit.MemberAdd,
		audit.MemberAdd, audit.OrgCreate}, actions, "newest first; the second add of the viewer is recorded too")

	_, err = d.Pool.Exec(ctx, "UPDATE audit_events SET actor = 'someone'")
	require.ErrorContains(t, err, "append-only")
	_, err = d.Pool.Exec(ctx, "DELETE FROM audit_events")
	require.ErrorContains(t, err, "append-only")
}

func dbListAudit(org string) db.ListAuditParams {
	return db.ListAuditParams{OrgID: uuid.MustParse(org), Limit: 100}
}
