package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/freeport"
)

// firstStepsTimeout bounds the whole README run: the service's start, one issuance and its verification take
// seconds; a step that hangs (a wait loop on a service that never answers) fails the test here instead.
const firstStepsTimeout = 4 * time.Minute

// TestReadme_FirstSteps runs the README's First steps as a reader does: the sh blocks under "## First steps", in
// one bash, against `badged dev` started by the blocks themselves, but on ports, a database and a data directory of
// the test's own, so a developer's `make run` (8080, 8233, 8545) is left alone. Lines that call make are left out:
// the test builds the binary (bin/badged-dev in the run's directory is it) and Postgres is up for every test. The end
// must hold: the issuance COMPLETED, its assertion RECEIVED, its mail in the outbox, and `credential verify` VALID
// with exit 0.
func TestReadme_FirstSteps(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	blocks := firstStepsBlocks(t, string(readme))
	script := firstStepsScript(blocks)
	for _, want := range []string{" dev &", "admin org create", "/issuances", "credential verify"} {
		require.Contains(t, script, want, "the First steps no longer do what this test checks")
	}

	d := dbtest.New(t)
	ports, err := freeport.Pick("127.0.0.1", 4)
	require.NoError(t, err)
	work := t.TempDir() // the reader's checkout: bin/badged-dev, docs/ (the example image); .data and credential.json land here
	require.NoError(t, os.MkdirAll(filepath.Join(work, "bin"), 0o755))
	require.NoError(t, os.Symlink(badgedBinary(t), filepath.Join(work, "bin", "badged-dev")))
	docs, err := filepath.Abs(filepath.Join("..", "docs"))
	require.NoError(t, err)
	require.NoError(t, os.Symlink(docs, filepath.Join(work, "docs")))
	scriptFile := filepath.Join(t.TempDir(), "first-steps.sh")
	require.NoError(t, os.WriteFile(scriptFile, []byte(script), 0o644))

	cmd := exec.Command("bash", scriptFile)
	cmd.Dir = work
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + work,
		"DATABASE_URL=" + dbtest.URL(t, d),
		fmt.Sprintf("HTTP_ADDR=127.0.0.1:%d", ports[0]),
		fmt.Sprintf("BASE=http://127.0.0.1:%d", ports[0]), // PUBLIC_BASE_URL's default: HTTP_ADDR's host and port
		fmt.Sprintf("TEMPORAL_DEV_ADDR=127.0.0.1:%d", ports[1]),
		"TEMPORAL_UI_ADDR=off",
		fmt.Sprintf("DEV_CHAIN_ADDR=127.0.0.1:%d", ports[2]),
		fmt.Sprintf("METRICS_ADDR=127.0.0.1:%d", ports[3]),
		"LOG_FORMAT=text",
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// bash and the `badged dev` it starts in the background share a process group of their own: on a timeout, or
	// whatever happens, the group goes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), firstStepsTimeout)
	defer cancel()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("the First steps did not finish within %s; output:\n%s", firstStepsTimeout, tail(out.Bytes(), 8<<10))
	}
	output := out.String()
	require.NoError(t, err, "the First steps failed; output:\n%s", tail(out.Bytes(), 8<<10))

	vars := scriptVars(t, output)
	var status, state string
	require.NoError(t, d.Pool.QueryRow(context.Background(),
		"SELECT processing_status FROM issuances WHERE id = $1", vars["ISS"]).Scan(&status))
	require.Equal(t, "COMPLETED", status, "the README's issuance")
	require.NoError(t, d.Pool.QueryRow(context.Background(),
		"SELECT state FROM assertions WHERE id = $1", vars["A"]).Scan(&state))
	require.Equal(t, "RECEIVED", state, "the README's assertion")
	require.Contains(t, output, "\"COMPLETED\"\n", "the block prints the issuance's status")
	// The README says what the verdict is without --rpc: valid, the chain's transaction and sender left unchecked.
	require.Regexp(t, `(?m)^VALID \(not checked: anchor transaction, anchor sender\)$`, output,
		"credential verify's verdict, as the README gives it (its exit status was 0: the script ran on)")
	require.Equal(t, 1, countFiles(t, filepath.Join(work, ".data", "outbox"), ".eml"), "the recipient's mail in the outbox")
	t.Logf("README First steps: %d blocks, %d lines, ran in %s", len(blocks), strings.Count(script, "\n"),
		time.Since(start).Round(100*time.Millisecond))
}

// firstStepsBlocks returns the fenced sh blocks of the README's "## First steps" section, in order.
func firstStepsBlocks(tb testing.TB, readme string) []string {
	tb.Helper()
	var blocks []string
	var in, section bool
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(readme))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case in && strings.HasPrefix(line, "```"):
			blocks = append(blocks, cur.String())
			cur.Reset()
			in = false
		case in:
			cur.WriteString(line + "\n")
		case strings.HasPrefix(line, "## "):
			section = line == "## First steps"
		case section && (line == "```sh" || line == "```bash"):
			in = true
		}
	}
	require.NoError(tb, sc.Err())
	require.GreaterOrEqual(tb, len(blocks), 3, "the README's First steps have no sh blocks to run")
	return blocks
}

var makeLine = regexp.MustCompile(`^\s*make(\s|$)`)

// firstStepsScript is the blocks as one bash script: strict (a failing command or pipeline ends it), make left out,
// every background job (the service) stopped at the end as the README says, and the ids the test checks printed
// last.
func firstStepsScript(blocks []string) string {
	var b strings.Builder
	b.WriteString("set -euo pipefail\n")
	b.WriteString("trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT\n")
	for _, block := range blocks {
		for _, line := range strings.SplitAfter(block, "\n") {
			if !makeLine.MatchString(line) {
				b.WriteString(line)
			}
		}
	}
	b.WriteString("printf '\\n@@ ISS=%s A=%s\\n' \"$ISS\" \"$A\"\n")
	return b.String()
}

var varsLine = regexp.MustCompile(`(?m)^@@ ISS=(\S+) A=(\S+)$`)

func scriptVars(tb testing.TB, output string) map[string]string {
	tb.Helper()
	m := varsLine.FindStringSubmatch(output)
	require.NotNil(tb, m, "the script's last line names the issuance and the assertion; output:\n%s", output)
	return map[string]string{"ISS": m[1], "A": m[2]}
}

// countFiles counts the files under dir whose name ends in suffix.
func countFiles(tb testing.TB, dir, suffix string) int {
	tb.Helper()
	n := 0
	require.NoError(tb, filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), suffix) {
			n++
		}
		return nil
	}))
	return n
}
