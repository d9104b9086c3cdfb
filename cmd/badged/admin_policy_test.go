package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/temporal"
)

func TestAdminRetryPolicyCheck(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	require.NoError(t, os.WriteFile(good, temporal.DefaultRetryPolicy, 0o600))
	bad := filepath.Join(dir, "bad.json")
	typo := strings.Replace(string(temporal.DefaultRetryPolicy), `"remote":      {"retryable"`, `"remote":      {"retriable"`, 1)
	require.NotEqual(t, string(temporal.DefaultRetryPolicy), typo)
	require.NoError(t, os.WriteFile(bad, []byte(typo), 0o600))
	env := func(string) string { return "" }

	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"admin", "retry-policy", "check", good}, env, &out, &bytes.Buffer{}))
	require.Contains(t, out.String(), "valid")
	require.Contains(t, out.String(), "EMAIL_SERVER_ERROR")

	out.Reset()
	err := run(context.Background(), []string{"admin", "retry-policy", "check", bad}, env, &out, &bytes.Buffer{})
	require.ErrorContains(t, err, `line 7: class remote: json: unknown field "retriable"`)
	require.Empty(t, out.String(), "no table for an invalid file")
}
