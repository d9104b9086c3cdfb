package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
)

// Two clusters on one Postgres need their own databases and state: a name, given or taken from the port offset,
// separates them; the default cluster keeps the names it always had, so an existing one is found again.
func TestConfig_NamesSeparateClusters(t *testing.T) {
	def := Config{Name: NameFor("", DefaultOffset)}.WithDefaults()
	require.Empty(t, def.Name)
	require.Equal(t, []string{"badged_cluster", "temporal", "temporal_visibility"}, def.Databases())
	require.Equal(t, filepath.Join(".data", "cluster"), mustRel(t, def.Dir))

	byOffset := Config{Name: NameFor("", 20000)}.WithDefaults()
	require.Equal(t, "p20000", byOffset.Name)
	require.Equal(t, []string{"badged_cluster_p20000", "temporal_p20000", "temporal_visibility_p20000"}, byOffset.Databases())
	require.Equal(t, filepath.Join(".data", "cluster-p20000"), mustRel(t, byOffset.Dir))

	named := Config{Name: NameFor("review", 20000)}.WithDefaults()
	require.Equal(t, []string{"badged_cluster_review", "temporal_review", "temporal_visibility_review"}, named.Databases())
	require.Equal(t, DirFor("review"), mustRel(t, named.Dir))

	// Explicit databases (the e2e tests' scratch ones) win over the name.
	explicit := Config{Name: "x", TemporalDB: "t1", VisibilityDB: "v1", BadgedDB: "b1"}.WithDefaults()
	require.Equal(t, []string{"b1", "t1", "v1"}, explicit.Databases())

	for _, bad := range []string{"Review", "a-b", "x;drop", "a b", strings.Repeat("a", 33), "é"} {
		require.Error(t, CheckName(bad), bad)
	}
	for _, good := range []string{"", "a", "p20000", "review_2"} {
		require.NoError(t, CheckName(good), good)
	}
	require.ErrorContains(t, Config{Name: "A-B"}.WithDefaults().Validate(), `cluster name "A-B"`)
}

func mustRel(t *testing.T, abs string) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, abs)
	require.NoError(t, err)
	return rel
}

// newTestCluster prepares (starts nothing) a cluster of 1 API and 1 worker on free ports in a temporary directory.
func newTestCluster(t *testing.T, cfg Config) *Cluster {
	t.Helper()
	cfg.Dir, cfg.APIs, cfg.Workers = t.TempDir(), 1, 1
	ports, err := FreePorts("127.0.0.1", cfg.APIs, cfg.Workers)
	require.NoError(t, err)
	cfg.Ports = ports
	c, err := New(cfg, nil)
	require.NoError(t, err)
	return c
}

// Up checks the ports of what it is about to start: one held by another program (another cluster on the same
// ports) is named at once, by process, instead of that process failing to bind halfway through the start. The
// ports of a process that runs are its own.
func TestUp_PortsOfWhatStartsMustBeFree(t *testing.T) {
	c := newTestCluster(t, Config{})
	require.NoError(t, c.portsFree(nil))

	lb, err := net.Listen("tcp", c.addr(portLB))
	require.NoError(t, err)
	defer lb.Close()
	metrics, err := net.Listen("tcp", c.addr("temporal-history.metrics"))
	require.NoError(t, err)
	defer metrics.Close()
	err = c.portsFree(nil)
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, "lb: port "+c.addr(portLB)+" is in use by another program")
	require.Contains(t, msg, "temporal-history: port "+c.addr("temporal-history.metrics")+" is in use")
	require.Contains(t, msg, "--port-offset and --name")
	require.Less(t, strings.Index(msg, "temporal-history"), strings.Index(msg, "lb:"), "in start order")
	require.Len(t, strings.Split(msg, "\n"), 3, "one line per process, and the hint")

	// Running, they hold their own ports.
	require.NoError(t, c.portsFree(map[string]bool{portLB: true, "temporal-history": true}))
}

func TestUp_ReportsWhatItStartedAgain(t *testing.T) {
	procs := []*Process{{Name: "s3"}, {Name: "temporal-history"}, {Name: "api1"}, {Name: "worker1"}}
	require.Equal(t, "started all 4 processes", startReport(procs, map[string]bool{}))
	require.Equal(t, "all 4 processes were running; nothing started",
		startReport(procs, map[string]bool{"s3": true, "temporal-history": true, "api1": true, "worker1": true}))
	require.Equal(t, "started again (were not running): temporal-history, worker1; kept running: 2",
		startReport(procs, map[string]bool{"s3": true, "api1": true}))
}

// A process that died is started again by Start, the call every Up step makes, and one that runs is kept with its
// pid; the cluster's view of what runs follows.
func TestCluster_StartAgainWhatDied(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, Config{})
	var sleepers []*Process
	for _, name := range []string{"s3", "smtp", "chain"} {
		p := c.Process(name)
		p.Bin, p.Args, p.ready, p.dieWithParent = "/bin/sleep", []string{"60"}, func(context.Context) error { return nil }, true
		t.Cleanup(func() { _ = p.Kill(context.Background()) })
		sleepers = append(sleepers, p)
	}
	require.NoError(t, startAll(ctx, sleepers))
	pids := map[string]int{}
	for _, p := range sleepers {
		pids[p.Name] = p.Pid()
	}
	require.NoError(t, c.Process("smtp").Kill(ctx))
	before := c.running()
	require.Equal(t, map[string]bool{"s3": true, "chain": true}, before)

	require.NoError(t, startAll(ctx, sleepers))
	require.Equal(t, pids["s3"], c.Process("s3").Pid(), "kept")
	require.Equal(t, pids["chain"], c.Process("chain").Pid(), "kept")
	require.NotZero(t, c.Process("smtp").Pid())
	require.NotEqual(t, pids["smtp"], c.Process("smtp").Pid(), "started again")
	require.Contains(t, startReport(sleepers, before), "started again (were not running): smtp; kept running: 2")
}

// Down keeps the databases and the state directory; Kept says what and how much, and Purge removes both: the
// databases dropped by Temporal's SQL tool (the one make cluster builds), the directory deleted. It refuses while
// a process runs, and a second purge finds nothing left and succeeds, the tool found again if it was removed.
func TestCluster_KeptAndPurge(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	sqlTool, err := BuildSQLTool(ctx, repo, nil)
	require.NoError(t, err)

	admin := dbtest.New(t)
	cfg := Config{Postgres: dbtest.ServerURL(), Name: "purge", Repo: repo,
		BadgedDB: dbtest.Scratch(t, "badged_cluster_purge"), TemporalDB: dbtest.Scratch(t, "temporal_purge"),
		VisibilityDB: dbtest.Scratch(t, "temporal_visibility_purge")}
	cfg.Bin.SQLTool = sqlTool
	c := newTestCluster(t, cfg)
	for _, name := range c.Databases() {
		_, err := admin.Pool.Exec(ctx, "CREATE DATABASE "+name)
		require.NoError(t, err)
	}
	exists := func(name string) bool {
		var ok bool
		require.NoError(t, admin.Pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok))
		return ok
	}
	require.NoError(t, os.WriteFile(filepath.Join(c.Dir, "logs", "api1.log"), make([]byte, 3000), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(c.Dir, "s3", "object"), make([]byte, 5000), 0o644))

	kept, err := c.Kept()
	require.NoError(t, err)
	require.Equal(t, c.Databases(), kept.Databases)
	require.Equal(t, c.Dir, kept.Dir)
	ring, err := os.Stat(c.keyringFile())
	require.NoError(t, err)
	require.EqualValues(t, 3000+5000+ring.Size(), kept.DirBytes)

	// A running process stops the purge, before anything is dropped.
	chain := c.Process("chain")
	chain.Bin, chain.Args, chain.ready, chain.dieWithParent = "/bin/sleep", []string{"60"}, func(context.Context) error { return nil }, true
	t.Cleanup(func() { _ = chain.Kill(context.Background()) })
	require.NoError(t, chain.Start(ctx))
	require.ErrorContains(t, c.Purge(ctx), "chain still running")
	for _, name := range c.Databases() {
		require.True(t, exists(name), name)
	}
	require.DirExists(t, c.Dir)

	require.NoError(t, chain.Kill(ctx))
	require.NoError(t, c.Purge(ctx))
	for _, name := range c.Databases() {
		require.False(t, exists(name), name)
	}
	require.NoDirExists(t, c.Dir)
	c.Bin.SQLTool = filepath.Join(t.TempDir(), "gone") // .tools cleaned since up: the purge finds the tool again
	require.NoError(t, c.Purge(ctx), "nothing left: a second purge succeeds")
	require.Equal(t, sqlTool, c.Bin.SQLTool)
}

// A second cluster beside the default one takes another --port-offset: any offset at least 2000 away from
// DefaultOffset (as the README says) gives ports that do not overlap, and Temporal's stay below 32768 up to 24000.
func TestDefaultPorts_OffsetsAtLeast2000ApartDoNotOverlap(t *testing.T) {
	used := map[int]string{}
	for k, p := range DefaultPorts(2, 2, DefaultOffset) {
		used[p] = k
	}
	for _, offset := range []int{2000, 4000, 8000, 12000, 15000, 24000} {
		cfg := Config{APIs: 2, Workers: 2, Ports: DefaultPorts(2, 2, offset)}
		for k, p := range cfg.Ports {
			require.Empty(t, used[p], "offset %d: port %d of %s is the default cluster's %s", offset, p, k, used[p])
		}
		require.NotContains(t, fmt.Sprint(cfg.Validate()), "below 32768", "offset %d", offset)
	}
	require.Contains(t, fmt.Sprint(Config{APIs: 1, Workers: 1, Ports: DefaultPorts(1, 1, 25000)}.Validate()), "below 32768")
}
