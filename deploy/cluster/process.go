package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is one process of the cluster. Its pid file (pids/NAME.pid: the pid and the kernel's start time of the
// process, so a reused pid is never taken for it) and its log (logs/NAME.log, appended across restarts) live in the
// cluster's directory, so a later `badged-cluster` invocation, or a benchmark sampling RSS and CPU, finds it.
type Process struct {
	Name string
	Role string // temporal, badged or outside: how `status` groups it
	Addr string // what it serves, as printed (a URL or host:port)
	Bin  string
	Args []string
	Env  []string

	ready   func(ctx context.Context) error
	pidFile string
	logFile string
	// dieWithParent makes the kernel kill the process when the process that started it exits (tests), instead of
	// leaving it running detached (`make cluster`).
	dieWithParent bool

	mu     sync.Mutex
	exited chan struct{} // closed when a process this one started exits; nil when not started here
}

// LogFile is the path of the process's log.
func (p *Process) LogFile() string { return p.logFile }

// PidFile is the path of the file that holds the process's pid while it runs.
func (p *Process) PidFile() string { return p.pidFile }

// Pid returns the pid of the running process, or 0 when it does not run.
func (p *Process) Pid() int {
	data, err := os.ReadFile(p.pidFile)
	if err != nil {
		return 0
	}
	pid, start, ok := parsePidFile(data)
	if !ok || !alive(pid, start) {
		return 0
	}
	return pid
}

// Start starts the process unless it runs already, then waits until it is ready or ctx ends.
func (p *Process) Start(ctx context.Context) error {
	if p.Pid() == 0 {
		if err := p.spawn(); err != nil {
			return err
		}
	}
	return p.WaitReady(ctx)
}

func (p *Process) spawn() error {
	log, err := os.OpenFile(p.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s: log: %w", p.Name, err)
	}
	defer log.Close()
	fmt.Fprintf(log, "=== %s: starting %s %s\n", time.Now().Format(time.RFC3339), p.Bin, strings.Join(p.Args, " "))
	cmd := exec.Command(p.Bin, p.Args...)
	cmd.Env = p.Env
	cmd.Stdout, cmd.Stderr = log, log
	// Its own session: a Ctrl-C in the terminal that ran `make cluster` does not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if p.dieWithParent {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: start %s: %w", p.Name, p.Bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.mu.Lock()
	p.exited = exited
	p.mu.Unlock()
	start, err := startTime(cmd.Process.Pid)
	if err != nil {
		// A process that exits at once is reaped before its start time can be read (/proc/PID is gone): that is
		// its exit, reported as WaitReady reports one, not a pid file problem.
		select {
		case <-exited:
			return fmt.Errorf("%s exited; end of %s:\n%s", p.Name, p.logFile, p.LogTail(3<<10))
		case <-time.After(time.Second):
		}
	}
	if err == nil {
		err = writeFileAtomic(p.pidFile, fmt.Appendf(nil, "%d %d\n", cmd.Process.Pid, start))
	}
	if err != nil {
		_ = cmd.Process.Kill()
		return fmt.Errorf("%s: pid file: %w", p.Name, err)
	}
	return nil
}

// WaitReady waits until the process answers as ready; it fails early, with the end of its log, when the process
// exits meanwhile.
func (p *Process) WaitReady(ctx context.Context) error {
	for {
		if p.Pid() == 0 {
			return fmt.Errorf("%s exited; end of %s:\n%s", p.Name, p.logFile, p.LogTail(3<<10))
		}
		err := p.ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s: %v; end of %s:\n%s", p.Name, p.Addr, err, p.logFile, p.LogTail(3<<10))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Kill sends SIGKILL, as a crash or an OOM kill would, and waits until the process is gone.
func (p *Process) Kill(ctx context.Context) error {
	return p.signal(ctx, syscall.SIGKILL)
}

// Stop asks the process to shut down (SIGTERM) and kills it when it has not exited within grace.
func (p *Process) Stop(ctx context.Context, grace time.Duration) error {
	gctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	err := p.signal(gctx, syscall.SIGTERM)
	if err == nil || ctx.Err() != nil {
		return err
	}
	return p.Kill(ctx)
}

// signal sends sig to the running process (none running: nothing to do) and waits until it is gone.
func (p *Process) signal(ctx context.Context, sig syscall.Signal) error {
	pid := p.Pid()
	if pid == 0 {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%s: %s: %w", p.Name, sig, err)
	}
	p.mu.Lock()
	exited := p.exited
	p.mu.Unlock()
	for {
		if exited != nil {
			select {
			case <-exited:
				_ = os.Remove(p.pidFile)
				return nil
			default:
			}
		} else if p.Pid() == 0 { // started by another invocation: its parent (init) reaps it
			_ = os.Remove(p.pidFile)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s (pid %d) still running after %s: %w", p.Name, pid, sig, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// LogTail returns the last n bytes of the process's log.
func (p *Process) LogTail(n int) string {
	data, _ := os.ReadFile(p.logFile)
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return string(bytes.TrimSpace(data))
}

// LogContains reports whether the process's log so far contains s.
func (p *Process) LogContains(s string) bool {
	data, _ := os.ReadFile(p.logFile)
	return bytes.Contains(data, []byte(s))
}

func parsePidFile(data []byte) (pid int, start uint64, ok bool) {
	f := strings.Fields(string(data))
	if len(f) != 2 {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	return pid, start, err1 == nil && err2 == nil && pid > 0
}

// alive reports whether pid runs and is the process that started at start (clock ticks after boot), not a zombie
// and not another process that got the pid later.
func alive(pid int, start uint64) bool {
	state, got, err := procStat(pid)
	return err == nil && got == start && state != 'Z' && state != 'X'
}

func startTime(pid int) (uint64, error) {
	_, start, err := procStat(pid)
	return start, err
}

// procStat reads the state (field 3) and start time (field 22) of /proc/PID/stat. The command name (field 2) may
// hold spaces and parentheses, so the fields are counted from its closing parenthesis.
func procStat(pid int) (state byte, start uint64, err error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, errors.New("malformed stat")
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return 0, 0, errors.New("malformed stat")
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	return f[0][0], start, err
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
