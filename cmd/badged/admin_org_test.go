package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
)

// TestAdminOrg_NameRule: `admin org create` and `admin org update` hold organization names to the API's rule for
// names (internal/safetext): quotes, commas and Hangul are fine; line breaks, other control characters and
// bidirectional overrides are refused with the reason, and nothing is stored.
func TestAdminOrg_NameRule(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	vars := map[string]string{"DATABASE_URL": dbtest.URL(t, d), "LOG_LEVEL": "error"}
	env := func(k string) string { return vars[k] }
	admin := func(args ...string) (map[string]any, error) {
		var out bytes.Buffer
		if err := run(ctx, append([]string{"admin", "org"}, args...), env, &out, &bytes.Buffer{}); err != nil {
			return nil, err
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &m), out.String())
		return m, nil
	}

	quoted := `Hanbit "Lifelong, Learning" Center`
	org, err := admin("create", "--name", "  "+quoted+" ", "--credits", "1")
	require.NoError(t, err)
	require.Equal(t, quoted, org["name"], "trimmed, quotes and comma kept")
	id := org["id"].(string)

	for name, want := range map[string]string{
		"Hanbit\r\nBcc: x@evil.test": "must be one line",
		"Hanbit\tCenter":             "control characters (U+0009",
		"Hanbit\x1b[2J":              "control characters (U+001B",
		"Han\u0085bit":               "control characters (U+0085",
		"Hanbit \u202eretneC":        "bidirectional override, embedding or isolate characters (U+202E",
		"Hanbit \u2066x\u2069":       "U+2066",
		"\xff\xfe":                   "valid UTF-8",
	} {
		_, err := admin("create", "--name", name, "--credits", "1")
		require.ErrorContains(t, err, "org create: --name", "%q", name)
		require.ErrorContains(t, err, want, "%q", name)
		_, err = admin("update", "--id", id, "--name", name)
		require.ErrorContains(t, err, "org update: --name", "%q", name)
		require.ErrorContains(t, err, want, "%q", name)
	}
	var n int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM organizations`).Scan(&n))
	require.Equal(t, 1, n, "no refused name was stored")

	updated, err := admin("update", "--id", id, "--name", "한빛 평생교육원")
	require.NoError(t, err)
	require.Equal(t, "한빛 평생교육원", updated["name"])
}

// TestAdminOrg_Description: `admin org update --description` sets the organization page's description (lines kept,
// trimmed), refuses control characters and more than 2,000 characters with the reason, and "" clears it.
func TestAdminOrg_Description(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	vars := map[string]string{"DATABASE_URL": dbtest.URL(t, d), "LOG_LEVEL": "error"}
	env := func(k string) string { return vars[k] }
	admin := func(args ...string) (map[string]any, error) {
		var out bytes.Buffer
		if err := run(ctx, append([]string{"admin", "org"}, args...), env, &out, &bytes.Buffer{}); err != nil {
			return nil, err
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &m), out.String())
		return m, nil
	}
	org, err := admin("create", "--name", "Hanbit", "--credits", "1")
	require.NoError(t, err)
	id := org["id"].(string)
	got, err := admin("update", "--id", id, "--description", "  We teach.\n현업 개발자를 위한 교육.  ")
	require.NoError(t, err)
	require.Equal(t, "We teach.\n현업 개발자를 위한 교육.", got["description"])
	_, err = admin("update", "--id", id, "--description", "x \x1b[2J")
	require.ErrorContains(t, err, "org update: --description")
	_, err = admin("update", "--id", id, "--description", strings.Repeat("가", 2001))
	require.ErrorContains(t, err, "at most 2000 characters")
	got, err = admin("update", "--id", id, "--description", "")
	require.NoError(t, err)
	require.Nil(t, got["description"])
}
