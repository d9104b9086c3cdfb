package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/waitfor"
)

func testProcess(t *testing.T, name string, args ...string) *Process {
	t.Helper()
	dir := t.TempDir()
	p := &Process{Name: name, Bin: args[0], Args: args[1:], Env: []string{}, ready: func(context.Context) error { return nil },
		pidFile: filepath.Join(dir, name+".pid"), logFile: filepath.Join(dir, name+".log"), dieWithParent: true}
	t.Cleanup(func() { _ = p.Kill(context.Background()) })
	return p
}

func TestProcess_StartKillAndPidFile(t *testing.T) {
	ctx := context.Background()
	p := testProcess(t, "sleeper", "/bin/sleep", "60")
	require.Zero(t, p.Pid())
	require.NoError(t, p.Start(ctx))
	pid := p.Pid()
	require.Positive(t, pid)
	require.NoError(t, p.Start(ctx), "starting a running process is a no-op")
	require.Equal(t, pid, p.Pid())

	// Another invocation finds it through the pid file alone.
	other := &Process{Name: p.Name, pidFile: p.PidFile(), logFile: p.LogFile()}
	require.Equal(t, pid, other.Pid())

	require.NoError(t, p.Kill(ctx))
	require.Zero(t, p.Pid())
	require.NoFileExists(t, p.PidFile())
	require.True(t, p.LogContains("starting /bin/sleep 60"))
}

func TestProcess_PidReusedByAnotherProcessIsNotIt(t *testing.T) {
	p := testProcess(t, "ghost", "/bin/true")
	// The test process's own pid, with a start time that is not its own: a pid the kernel handed to another process.
	require.NoError(t, os.WriteFile(p.PidFile(), fmt.Appendf(nil, "%d 1\n", os.Getpid()), 0o644))
	require.Zero(t, p.Pid())
}

func TestProcess_StopKillsWhatIgnoresSIGTERM(t *testing.T) {
	ctx := context.Background()
	p := testProcess(t, "stubborn", "/bin/sh", "-c", `trap "" TERM; echo trapped; sleep 60`)
	require.NoError(t, p.Start(ctx))
	waitfor.True(t, 10*time.Second, 10*time.Millisecond, "the shell's trap set", func() bool { return p.LogContains("trapped") })
	t0 := time.Now()
	require.NoError(t, p.Stop(ctx, 300*time.Millisecond))
	require.Zero(t, p.Pid())
	require.Less(t, time.Since(t0), 5*time.Second)
}

func TestProcess_WaitReadyReportsAnExit(t *testing.T) {
	p := testProcess(t, "quitter", "/bin/sh", "-c", "echo bad config; exit 3")
	p.ready = func(context.Context) error { return fmt.Errorf("not yet") }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := p.Start(ctx)
	require.ErrorContains(t, err, "quitter exited")
	require.ErrorContains(t, err, "bad config")
}
