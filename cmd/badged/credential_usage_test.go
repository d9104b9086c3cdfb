package main

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/verifier"
)

// The outcomes of `credential verify` that are no verdict: nothing verified (exit 2), the credential's URL
// unreachable (exit 3).

func TestCredentialVerify_NotACredential(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"text", []byte("hello, world\n")},
		{"json without credential", []byte(`{"hello": "world"}`)},
		{"png without credential", mustBadgePNG(t)},
		{"svg without credential", []byte(badgeSVG)},
		{"broken json", []byte(`{"@context": [`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeTemp(t, "x", tt.data)
			out, err := runCred(t, "verify", "--offline", file)
			require.ErrorIs(t, err, verifier.ErrNotCredential)
			requireNotVerified(t, err)
			require.Empty(t, out)
			_, err = runCred(t, "unbake", file)
			require.ErrorIs(t, err, verifier.ErrNotCredential)
		})
	}
}

// requireNotVerified checks that err is what main reports as "nothing was verified": exit status 2, the reason on
// one line of stderr.
func requireNotVerified(t *testing.T, err error) {
	t.Helper()
	require.NotErrorIs(t, err, errInvalid)
	require.NotErrorIs(t, err, errCouldNotCheck)
	var stderr bytes.Buffer
	require.Equal(t, 2, exitCode(err, []string{"credential", "verify"}, &stderr))
	require.True(t, strings.HasPrefix(stderr.String(), "badged credential: credential verify"), stderr.String())
}

func TestCredentialCommand_Usage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"verify", "--offline"}, "want exactly one FILE, got 0"},
		{"two files", []string{"verify", "a", "b"}, "want exactly one FILE, got 2"},
		{"offline rpc", []string{"verify", "--offline", "--rpc", "http://127.0.0.1:1", "f"}, "--offline cannot ask the chain"},
		{"offline url", []string{"verify", "--offline", "http://127.0.0.1:1/credentials/1"}, "--offline forbids fetching"},
		{"url not allowed", []string{"verify", "http://badges.example/credentials/1"}, "plain http is only allowed to localhost"},
		{"missing receipt", []string{"verify", "--receipt", "/nonexistent/r.json", vectorSigned}, "--receipt"},
		{"missing file", []string{"verify", "--offline", "/nonexistent/c.json"}, "no such file"},
		{"bad controller", []string{"verify", "--offline", "--controller", vectorSigned, vectorSigned}, "controller document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runCred(t, tt.args...)
			require.ErrorContains(t, err, tt.want)
			requireNotVerified(t, err)
		})
	}
	for _, args := range [][]string{nil, {"check", "x"}} {
		_, err := runCred(t, args...)
		require.Error(t, err)
		require.NotErrorIs(t, err, errInvalid)
	}
	out, err := runCred(t, "verify", "-h")
	require.NoError(t, err)
	require.Contains(t, out, "badged credential verify")
	require.Contains(t, out, "3  COULD NOT CHECK")
}

// An http(s) credential that cannot be fetched could not be checked (3), not verified as bad.
func TestCredentialVerify_URLUnreachable(t *testing.T) {
	out, err := runCred(t, "verify", "http://"+closedAddr(t)+"/credentials/1")
	require.Empty(t, out)
	var stderr bytes.Buffer
	require.Equal(t, 3, exitCode(err, []string{"credential", "verify"}, &stderr))
	require.Contains(t, stderr.String(), "badged credential: credential verify: could not fetch the credential: fetch http://")
	require.Contains(t, stderr.String(), "connection refused")
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}
