package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	dcluster "github.com/badged/badged/deploy/cluster"

	"github.com/badged/badged/internal/waitfor"
)

// The cluster tests run the real `badged` binary as separate processes, so that a worker can be killed and a
// second API or worker is a second process, not a second goroutine.
var (
	buildMu sync.Mutex
	binDir  string
	built   = map[string]string{} // build flags and package -> binary
)

// TestMain removes the binaries built for the cluster tests.
func TestMain(m *testing.M) {
	if spec := os.Getenv(chainNodeEnv); spec != "" {
		runChainNode(spec) // this process is a cluster test's chain node, until it is killed
	}
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// badgedBinary builds cmd/badged once per test process (the build cache makes it a link step after `go test`
// compiled the same packages).
func badgedBinary(tb testing.TB) string {
	tb.Helper()
	return buildBinary(tb, "badged", "github.com/badged/badged/cmd/badged")
}

// buildBinary builds pkg with the go build flags once per test process into a temporary directory.
func buildBinary(tb testing.TB, name, pkg string, flags ...string) string {
	tb.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	key := strings.Join(append(flags, pkg), " ")
	if path, ok := built[key]; ok {
		return path
	}
	if binDir == "" {
		dir, err := os.MkdirTemp("", "badged-e2e-")
		require.NoError(tb, err)
		binDir = dir
	}
	path := filepath.Join(binDir, fmt.Sprintf("%s-%d", name, len(built)))
	args := append(append([]string{"build", "-o", path}, flags...), pkg)
	out, err := exec.Command("go", args...).CombinedOutput()
	require.NoError(tb, err, "go build %s:\n%s", pkg, out)
	built[key] = path
	return path
}

// proc is one badged process (`serve` or `worker`) that a test can start, kill and start again.
type proc struct {
	Bin   string // executable; empty: the badged binary
	Name  string
	Args  []string
	Env   []string
	Ready string // URL that answers 200 once the process is up
	// Metrics is the /metrics URL of the process's METRICS_ADDR listener, "" when the test gave it none.
	Metrics string
	log     string // file the process writes its output to, appended across restarts
	// ext, when set, is a process of deploy/cluster (what `make cluster` runs): Start, Stop and Kill go through it.
	ext *dcluster.Process

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// newProc prepares a process; its log goes to a file in the test's temp dir, printed when the test fails.
func newProc(tb testing.TB, name, ready string, env []string, args ...string) *proc {
	tb.Helper()
	p := &proc{Name: name, Args: args, Env: env, Ready: ready, log: filepath.Join(tb.TempDir(), name+".log")}
	tb.Cleanup(func() {
		p.Stop(tb)
		if tb.Failed() {
			data, _ := os.ReadFile(p.log)
			tb.Logf("--- log of %s (last 6 KB) ---\n%s", name, tail(data, 6<<10))
		}
	})
	return p
}

// Start starts the process and waits until its Ready URL answers.
func (p *proc) Start(tb testing.TB) {
	tb.Helper()
	if p.ext != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		require.NoError(tb, p.ext.Start(ctx), "start %s", p.Name)
		return
	}
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(tb, err)
	defer f.Close()
	bin := p.Bin
	if bin == "" {
		bin = badgedBinary(tb)
	}
	cmd := exec.Command(bin, p.Args...)
	cmd.Env = p.Env
	cmd.Stdout, cmd.Stderr = f, f
	require.NoError(tb, cmd.Start(), "start %s", p.Name)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.mu.Lock()
	p.cmd, p.exited = cmd, exited
	p.mu.Unlock()

	p.WaitReady(tb, 60*time.Second)
}

// WaitReady waits until the process's Ready URL answers 200; the process exiting meanwhile fails the test.
func (p *proc) WaitReady(tb testing.TB, timeout time.Duration) {
	tb.Helper()
	if p.ext != nil {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		require.NoError(tb, p.ext.WaitReady(ctx))
		return
	}
	p.mu.Lock()
	exited := p.exited
	p.mu.Unlock()
	waitfor.True(tb, timeout, 100*time.Millisecond, p.Name+" ready at "+p.Ready, func() bool {
		select {
		case <-exited:
			data, _ := os.ReadFile(p.log)
			tb.Fatalf("%s exited:\n%s", p.Name, tail(data, 4<<10))
		default:
		}
		res, err := http.Get(p.Ready)
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
}

// Kill sends SIGKILL, as a crashed machine or an OOM kill would, and waits until the process is gone.
func (p *proc) Kill(tb testing.TB) {
	tb.Helper()
	p.signal(tb, syscall.SIGKILL, 10*time.Second)
}

// Stop asks the process to shut down gracefully (SIGTERM) and kills it after 30 s.
func (p *proc) Stop(tb testing.TB) {
	tb.Helper()
	if !p.signal(tb, syscall.SIGTERM, 30*time.Second) {
		p.Kill(tb)
	}
}

// signal sends sig and reports whether the process exited within wait; a process not running is a no-op.
func (p *proc) signal(tb testing.TB, sig syscall.Signal, wait time.Duration) bool {
	tb.Helper()
	if p.ext != nil {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		var err error
		if sig == syscall.SIGKILL {
			err = p.ext.Kill(ctx)
		} else {
			err = p.ext.Stop(ctx, wait)
		}
		if err != nil {
			tb.Logf("%s: %v", p.Name, err)
		}
		return err == nil
	}
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil {
		return true
	}
	select {
	case <-exited:
		return true
	default:
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-exited:
		return true
	case <-time.After(wait):
		tb.Logf("%s did not exit %s after %s", p.Name, sig, wait)
		return false
	}
}

// LogContains reports whether the process's log so far contains s.
func (p *proc) LogContains(s string) bool {
	data, _ := os.ReadFile(p.log)
	return bytes.Contains(data, []byte(s))
}

// freeAddr returns a loopback host:port that was free a moment ago.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	defer ln.Close()
	return ln.Addr().String()
}

func tail(data []byte, n int) string {
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return strings.TrimSpace(string(data))
}
