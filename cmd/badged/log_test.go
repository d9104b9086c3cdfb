package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/issuancelog"
)

// TestLogVerify: `badged log verify` lists every entry on a first run, writes the state, then on the next run
// proves the log consistent with it and lists only the entries added since; a log that does not verify exits 1
// and leaves the state file alone.
func TestLogVerify(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	key, err := e.Issuer.Key(ctx, e.Org.ID, apikey.ModeLive)
	require.NoError(t, err)
	appendN := func(from, n int) {
		es := make([]issuancelog.Entry, n)
		for i := range es {
			id := fmt.Sprintf("%s/credentials/%d", e.Srv.URL, from+i)
			es[i] = issuancelog.Entry{CredentialID: id, SHA256: sha256.Sum256([]byte(id)), Type: "OpenBadgeCredential",
				ValidFrom: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		}
		require.NoError(t, e.DB.InTx(ctx, func(q *db.Queries) error {
			_, err := issuancelog.Append(ctx, q, issuancelog.Origin(e.Srv.URL, e.Org.ID), e.Org.ID, key, es, nil)
			return err
		}))
	}
	issuer := e.Srv.URL + "/issuers/" + e.Org.ID.String()
	state := filepath.Join(t.TempDir(), "state.json")
	logVerify := func(args ...string) (string, int) {
		var out, stderr bytes.Buffer
		err := runLog(ctx, append([]string{"verify"}, args...), &out)
		return out.String(), exitCode(err, []string{"log"}, &stderr)
	}

	appendN(0, 2)
	out, code := logVerify("--issuer", issuer, "--state", state)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "added since 0: 2\n0 2026-01-02T03:04:05Z OpenBadgeCredential ")
	require.True(t, strings.HasSuffix(out, e.Srv.URL+"/credentials/1\nVERIFIED\n"), out)

	appendN(2, 3)
	out, code = logVerify("--issuer", issuer, "--state", state)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "consistent with the state's checkpoint of 2 entries\nadded since 2: 3\n2 ")

	out, code = logVerify("--issuer", e.Srv.URL+"/issuers/"+e.Other.ID.String(), "--state", state)
	require.Equal(t, 1, code, out)
	out, code = logVerify("--state", state)
	require.Equal(t, 2, code, out)
	out, code = logVerify("--issuer", issuer, "--state", state) // the failed run left the state as it was
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "added since 5: 0\n")
}
