//go:build !production

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/freeport"
)

// devListeners are the settings of the addresses `badged dev` listens on, with the part each one belongs to, in
// the order the parts start.
var devListeners = []struct{ part, setting string }{
	{"chain", "DEV_CHAIN_ADDR"},
	{"temporal", "TEMPORAL_DEV_ADDR"},
	{"temporal ui", "TEMPORAL_UI_ADDR"},
	{"metrics", "METRICS_ADDR"},
	{"api", "HTTP_ADDR"},
}

// devVars is the environment of one `badged dev` on the database at dbURL: every listener on a free port of its
// own, its files in a new DATA_DIR.
func devVars(t *testing.T, dbURL string) map[string]string {
	t.Helper()
	ports, err := freeport.Pick("127.0.0.1", len(devListeners))
	require.NoError(t, err)
	vars := map[string]string{"DATABASE_URL": dbURL, "DATA_DIR": t.TempDir(), "HOME": t.TempDir(), "PATH": "/usr/bin:/bin"}
	for i, l := range devListeners {
		vars[l.setting] = net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[i]))
	}
	vars["PUBLIC_BASE_URL"] = "http://" + vars["HTTP_ADDR"]
	return vars
}

// occupy listens on addr until the test ends, as another process holding the port would.
func occupy(t *testing.T, addr string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
}

// inUseLine is the one line `badged dev` ends with when a part's address is taken.
func inUseLine(part, setting, addr string) string {
	return fmt.Sprintf("badged dev: %s: listen tcp %s: bind: address already in use (another process has it: stop it, or set %s)",
		part, addr, setting)
}

// buildBadged builds this command into the test's directory (a link step after `go test` compiled its packages).
func buildBadged(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "badged")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	return bin
}

// runDev runs bin's `badged dev` with vars as its whole environment until it exits, and returns its exit status
// and its stderr.
func runDev(t *testing.T, bin string, vars map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "dev")
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "badged dev did not exit:\n%s", stderr.String())
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "badged dev started and exited 0:\n%s", stderr.String())
	require.Empty(t, stdout.String())
	return exit.ExitCode(), stderr.String()
}

// requireOneLine checks that the output ends with want, on a line of its own, and that every line before it is a
// JSON log record (LOG_FORMAT's default): no panic, no stack, nothing else.
func requireOneLine(t *testing.T, out, want string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Equal(t, want, lines[len(lines)-1], out)
	for _, l := range lines[:len(lines)-1] {
		require.True(t, json.Valid([]byte(l)), "not a log record: %q\n%s", l, out)
	}
	require.NotContains(t, out, "panic")
}

// TestDev_PortTaken runs `badged dev` as `make run` does, as a process, with each of its addresses taken in turn by
// another listener: it exits 1 with one line naming the part and the address, never a panic. The parts before it
// have started by then (the API's case starts all others), and are stopped: TestDev_StartFailureStopsWhatStarted.
func TestDev_PortTaken(t *testing.T) {
	bin := buildBadged(t)
	dbURL := dbtest.URL(t, dbtest.New(t))
	for _, l := range devListeners {
		t.Run(l.part, func(t *testing.T) {
			vars := devVars(t, dbURL)
			occupy(t, vars[l.setting])
			code, out := runDev(t, bin, vars)
			require.Equal(t, 1, code, out)
			requireOneLine(t, out, inUseLine(l.part, l.setting, vars[l.setting]))
		})
	}
	t.Run("database", func(t *testing.T) {
		vars := devVars(t, "")
		free, err := freeport.Pick("127.0.0.1", 1) // nothing listens there: Postgres is not running
		require.NoError(t, err)
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(free[0]))
		vars["DATABASE_URL"] = "postgres://badged:s3cret-password@" + addr + "/badged?sslmode=disable"
		code, out := runDev(t, bin, vars)
		require.Equal(t, 1, code, out)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		last := lines[len(lines)-1]
		requireOneLine(t, out, last)
		require.True(t, strings.HasPrefix(last, "badged dev: database: "), last)
		require.Contains(t, last, "dial tcp "+addr+": connect: connection refused")
		require.True(t, strings.HasSuffix(last, " (DATABASE_URL)"), last)
		require.NotContains(t, out, "s3cret-password")
	})
}

// TestDev_StartFailureStopsWhatStarted runs the real start path in-process with the API's address taken: by then
// the database, the dev chain, the Temporal server and its UI, the worker and the metrics listener have started.
// The error names the API's part and address, and every listener of the parts started before is closed again
// when run returns (each address can be listened on).
func TestDev_StartFailureStopsWhatStarted(t *testing.T) {
	vars := devVars(t, dbtest.URL(t, dbtest.New(t)))
	vars["LOG_LEVEL"] = "warn"
	occupy(t, vars["HTTP_ADDR"])
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var logs bytes.Buffer
	err := run(ctx, []string{"dev"}, func(k string) string { return vars[k] }, &bytes.Buffer{}, &logs)
	require.NoError(t, ctx.Err())
	var se *startError
	require.ErrorAs(t, err, &se, "%v\n%s", err, logs.String())
	require.Equal(t, "api", se.Part)

	var stderr bytes.Buffer
	require.Equal(t, 1, exitCode(err, []string{"dev"}, &stderr))
	require.Equal(t, inUseLine("api", "HTTP_ADDR", vars["HTTP_ADDR"])+"\n", stderr.String())

	for _, l := range devListeners[:len(devListeners)-1] {
		ln, err := net.Listen("tcp", vars[l.setting])
		require.NoError(t, err, "%s (%s) still listening after the failed start", l.part, l.setting)
		ln.Close()
	}
}

// TestStartError_Line: the line main prints for each kind of start error.
func TestStartError_Line(t *testing.T) {
	inUse := &net.OpError{Op: "listen", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8545},
		Err: os.NewSyscallError("bind", errors.New("address already in use"))}
	tests := []struct {
		err  error
		want string
	}{
		{temporalStartError(errors.New("devserver: open sqlite: disk full")), "badged dev: temporal: devserver: open sqlite: disk full\n"},
		{startFailed("database", "DATABASE_URL", errors.New("ping database: timeout")), "badged dev: database: ping database: timeout (DATABASE_URL)\n"},
		{startFailed("api", "HTTP_ADDR", startFailed("metrics", "METRICS_ADDR", errors.New("x"))), "badged dev: metrics: x (METRICS_ADDR)\n"},
		{fmt.Errorf("wrapped: %w", &startError{Part: "chain", Err: inUse}), "badged dev: chain: listen tcp 127.0.0.1:8545: bind: address already in use\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		require.Equal(t, 1, exitCode(tt.err, []string{"dev"}, &out))
		require.Equal(t, tt.want, out.String())
	}
	require.NoError(t, startFailed("api", "HTTP_ADDR", nil))
}
