// Package cluster runs badged's production topology on one machine without containers: Temporal's own server,
// built from the go.temporal.io/server module in go.mod, as four processes (frontend, history, matching, worker) on
// Postgres with deploy/temporal/config.yaml, the configuration the compose stack runs too; `badged serve` processes
// behind a round-robin balancer and `badged worker` processes; S3 (versitygw), SMTP and the dev chain node as
// processes of their own. `make cluster` runs it through cmd/badged-cluster, and the e2e cluster tests start it
// with the same Up, on free ports in a temporary directory.
//
// It imports internal/chain/devchain, temporal/setup and workflows (the search attributes), never the service's own
// packages: it runs the `badged` binary as a process.
package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// Cluster is a configured cluster and its processes, running or not.
type Cluster struct {
	Config
	procs []*Process // in start order
	log   io.Writer
}

// New prepares the processes of cfg (filled with defaults) without starting anything. It creates Dir and, the
// first time, the key ring that seals the issuers' keys (Dir/issuer-keyring), which every later start reuses.
func New(cfg Config, log io.Writer) (*Cluster, error) {
	cfg = cfg.WithDefaults()
	c := &Cluster{Config: cfg, log: log}
	for _, d := range []string{"", "pids", "logs", "mail", "s3", "chain"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := c.ensureKeyring(); err != nil {
		return nil, fmt.Errorf("issuer key ring: %w", err)
	}
	c.procs = append(c.procs, c.outsideProcs()...)
	c.procs = append(c.procs, c.temporalProcs()...)
	c.procs = append(c.procs, c.badgedProcs()...)
	return c, nil
}

// Open returns the cluster whose state is in dir, as its last Up left it.
func Open(dir string, log io.Writer) (*Cluster, error) {
	cfg, err := Load(dir)
	if err != nil {
		return nil, err
	}
	return New(cfg, log)
}

// Processes returns every process in start order.
func (c *Cluster) Processes() []*Process { return c.procs }

// Process returns the process named name (temporal-history, api1, worker2, s3…), or nil.
func (c *Cluster) Process(name string) *Process {
	for _, p := range c.procs {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func (c *Cluster) role(role string) []*Process {
	var out []*Process
	for _, p := range c.procs {
		if p.Role == role {
			out = append(out, p)
		}
	}
	return out
}

// Up brings the cluster up, and is safe to run again on a cluster that runs: what runs is kept, and a process that
// died (killed, crashed, or never started) is started again:
//  1. Temporal's databases are created and brought to the server's schema (deploy/temporal/schema.sh);
//  2. S3 (with its bucket), SMTP and the chain node start;
//  3. Temporal's four services start; the namespace and badged's search attributes are registered;
//  4. badged's database is migrated; the APIs, the workers and the balancer start.
//
// Every step waits until what it started answers; ctx bounds the whole. Before anything starts, the ports of the
// processes to start must be free: one held by another program (often another cluster on the same ports) is
// named at once, instead of a process failing to bind halfway through.
func (c *Cluster) Up(ctx context.Context) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if err := c.sameAsRunning(); err != nil {
		return err
	}
	before := c.running()
	if err := c.portsFree(before); err != nil {
		return err
	}
	if err := c.save(); err != nil {
		return fmt.Errorf("save %s: %w", configFile, err)
	}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"temporal schema", c.temporalSchema},
		{"s3, smtp, chain", func(ctx context.Context) error { return startAll(ctx, c.role(roleOutside)) }},
		{"s3 bucket", c.createBucket},
		{"temporal services", c.startTemporal},
		{"temporal namespace", c.registerNamespace},
		{"badged database", c.migrate},
		{"badged", c.startBadged},
	}
	for _, s := range steps {
		t0 := time.Now()
		if err := s.run(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		c.logf("%-20s ok (%s)", s.name, time.Since(t0).Round(10*time.Millisecond))
	}
	c.logf("%s", startReport(c.procs, before))
	return nil
}

// running is the set of the cluster's processes that run now, by name.
func (c *Cluster) running() map[string]bool {
	out := map[string]bool{}
	for _, p := range c.procs {
		if p.Pid() != 0 {
			out[p.Name] = true
		}
	}
	return out
}

// startReport says what an Up did: which processes it started (again, when the cluster had run before: those
// had died) and how many it found running and kept.
func startReport(procs []*Process, before map[string]bool) string {
	var started []string
	for _, p := range procs {
		if !before[p.Name] {
			started = append(started, p.Name)
		}
	}
	switch {
	case len(before) == 0:
		return fmt.Sprintf("started all %d processes", len(procs))
	case len(started) == 0:
		return fmt.Sprintf("all %d processes were running; nothing started", len(procs))
	}
	return fmt.Sprintf("started again (were not running): %s; kept running: %d", strings.Join(started, ", "), len(before))
}

// portsFree checks that every port of the processes Up is about to start can be bound: a port held by another
// program would make that process fail later, with the cause buried in its log.
func (c *Cluster) portsFree(running map[string]bool) error {
	taken := map[string]string{} // process name: one of its ports that is taken
	for _, key := range PortKeys(c.APIs, c.Workers) {
		owner, _, _ := strings.Cut(key, ".") // api1.metrics belongs to api1
		if running[owner] || taken[owner] != "" {
			continue
		}
		l, err := net.Listen("tcp", c.addr(key))
		if err != nil {
			taken[owner] = c.addr(key)
			continue
		}
		_ = l.Close()
	}
	var errs []error
	for _, p := range c.procs { // in start order, one line per process however many of its ports are taken
		if addr := taken[p.Name]; addr != "" {
			errs = append(errs, fmt.Errorf("%s: port %s is in use by another program", p.Name, addr))
		}
	}
	if len(errs) > 0 {
		errs = append(errs, errors.New("another cluster? run this one with another --port-offset and --name"))
	}
	return errors.Join(errs...)
}

// sameAsRunning refuses to start processes with another configuration beside ones still running from the last Up.
func (c *Cluster) sameAsRunning() error {
	old, err := Load(c.Dir)
	if err != nil {
		return nil // a new cluster
	}
	prev, err := New(old, c.log)
	if err != nil {
		return err
	}
	running := slices.ContainsFunc(prev.procs, func(p *Process) bool { return p.Pid() != 0 })
	if !running {
		return nil
	}
	// Clusters started before the binaries' paths were saved absolute hold them relative to the repository root,
	// where make runs: the same binaries.
	for _, p := range []*string{&old.Bin.TemporalServer, &old.Bin.SQLTool, &old.Bin.Badged, &old.Bin.Tool, &old.Bin.Versitygw} {
		if abs, err := filepath.Abs(*p); err == nil && *p != "" {
			*p = abs
		}
	}
	a, _ := jsonOf(old.WithDefaults())
	b, _ := jsonOf(c.Config)
	if string(a) != string(b) {
		return fmt.Errorf("the cluster in %s runs with other settings (%s); stop it first (make cluster-down)", c.Dir, configFile)
	}
	return nil
}

// startTemporal starts the history service first, then the other three at once: on new databases each process
// writes the cluster's metadata at start, and services racing to write it first fail to start.
func (c *Cluster) startTemporal(ctx context.Context) error {
	procs := c.role(roleTemporal)
	if err := procs[0].Start(ctx); err != nil {
		return err
	}
	return startAll(ctx, procs[1:])
}

// startBadged starts the APIs and workers, then the balancer in front of the APIs.
func (c *Cluster) startBadged(ctx context.Context) error {
	var apisAndWorkers []*Process
	var lb *Process
	for _, p := range c.role(roleBadged) {
		if p.Name == portLB {
			lb = p
			continue
		}
		apisAndWorkers = append(apisAndWorkers, p)
	}
	if err := startAll(ctx, apisAndWorkers); err != nil {
		return err
	}
	return lb.Start(ctx)
}

// startAll starts processes at once and waits until each is ready.
func startAll(ctx context.Context, procs []*Process) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, p := range procs {
		g.Go(func() error { return p.Start(gctx) })
	}
	return g.Wait()
}

// Down stops every process, badged first and the outside systems last, each with SIGTERM and a grace period;
// processes that do not run are skipped.
func (c *Cluster) Down(ctx context.Context) error {
	var errs []error
	order := slices.Clone(c.procs)
	slices.Reverse(order)
	for _, role := range []string{roleBadged, roleTemporal, roleOutside} {
		var g errgroup.Group
		for _, p := range order {
			if p.Role != role || p.Pid() == 0 {
				continue
			}
			g.Go(func() error {
				// badged drains for SHUTDOWN_TIMEOUT (20 s by default) before it exits.
				if err := p.Stop(ctx, 30*time.Second); err != nil {
					return err
				}
				c.logf("stopped %s", p.Name)
				return nil
			})
		}
		errs = append(errs, g.Wait())
	}
	return errors.Join(errs...)
}

// ProcessStatus is one process as `badged-cluster status` shows it.
type ProcessStatus struct {
	Name string `json:"name"`
	Role string `json:"role"`
	Pid  int    `json:"pid"` // 0: not running
	Addr string `json:"addr"`
	Log  string `json:"log"`
}

// Status reports every process.
func (c *Cluster) Status() []ProcessStatus {
	out := make([]ProcessStatus, 0, len(c.procs))
	for _, p := range c.procs {
		out = append(out, ProcessStatus{Name: p.Name, Role: p.Role, Pid: p.Pid(), Addr: p.Addr, Log: p.logFile})
	}
	return out
}

func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }

func (c *Cluster) logf(format string, args ...any) {
	if c.log != nil {
		fmt.Fprintf(c.log, format+"\n", args...)
	}
}

// newProcess makes a process with its pid file and log under the cluster's directory.
func (c *Cluster) newProcess(name, role, addr, bin string, args, env []string, ready func(context.Context) error) *Process {
	if env == nil {
		env = []string{} // not the caller's environment
	}
	return &Process{Name: name, Role: role, Addr: addr, Bin: bin, Args: args, Env: env, ready: ready,
		pidFile: filepath.Join(c.Dir, "pids", name+".pid"), logFile: filepath.Join(c.Dir, "logs", name+".log"),
		dieWithParent: c.DieWithParent}
}

// The roles of processes.
const (
	roleOutside  = "outside"
	roleTemporal = "temporal"
	roleBadged   = "badged"
)
