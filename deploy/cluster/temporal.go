package cluster

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/badged/badged/temporal/setup"
	"github.com/badged/badged/workflows"
)

const temporalModule = "go.temporal.io/server"

// BuildTemporal builds Temporal's server (cmd/server) and SQL schema tool (cmd/tools/sql) from the
// go.temporal.io/server module that repo's go.mod pins, into repo/.tools/temporal/<version>/, unless they are
// there already: the first build takes minutes, later ones nothing. It returns the two paths, absolute: they are
// saved in cluster.json, and `badged-cluster start NAME` may run from another directory.
func BuildTemporal(ctx context.Context, repo string, log io.Writer) (server, sqlTool string, err error) {
	if server, err = buildTemporalTool(ctx, repo, "temporal-server", "/cmd/server", log); err != nil {
		return "", "", err
	}
	sqlTool, err = BuildSQLTool(ctx, repo, log)
	return server, sqlTool, err
}

// BuildSQLTool is BuildTemporal for the SQL tool alone: what Purge runs, and all its tests need.
func BuildSQLTool(ctx context.Context, repo string, log io.Writer) (string, error) {
	return buildTemporalTool(ctx, repo, "temporal-sql-tool", "/cmd/tools/sql", log)
}

// buildTemporalTool builds the command pkg of the Temporal server module as repo/.tools/temporal/<version>/name.
func buildTemporalTool(ctx context.Context, repo, name, pkg string, log io.Writer) (string, error) {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return "", err
	}
	out, err := goCmd(ctx, repo, "list", "-m", "-f", "{{.Version}}", temporalModule).Output()
	if err != nil {
		return "", fmt.Errorf("version of %s in go.mod: %w", temporalModule, err)
	}
	version := strings.TrimSpace(string(out))
	bin := filepath.Join(repo, ".tools", "temporal", version, name)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	pkg = temporalModule + pkg
	if log != nil {
		fmt.Fprintf(log, "building %s@%s (minutes the first time)\n", pkg, version)
	}
	// Built within this module, so with the dependency versions go.sum pins; renamed into place when done, so an
	// interrupted build never leaves half a binary.
	if b, err := goCmd(ctx, repo, "build", "-o", bin+".tmp", pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return bin, os.Rename(bin+".tmp", bin)
}

func goCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	return cmd
}

// postgresParts splits the Postgres URL into what Temporal's configuration takes.
func (c Config) postgresParts() (host, port, user, password string) {
	u, _ := url.Parse(c.Postgres)
	port = u.Port()
	if port == "" {
		port = "5432"
	}
	password, _ = u.User.Password()
	return u.Hostname(), port, u.User.Username(), password
}

// temporalProcs are Temporal's four services, each `temporal-server start --service NAME` with
// deploy/temporal/config.yaml; every process gets every port (the config names all services), and binds its own.
func (c *Cluster) temporalProcs() []*Process {
	host, port, user, password := c.postgresParts()
	env := []string{
		"DB=postgres12",
		"POSTGRES_SEEDS=" + host, "DB_PORT=" + port, "POSTGRES_USER=" + user, "POSTGRES_PWD=" + password,
		"DBNAME=" + c.TemporalDB, "VISIBILITY_DBNAME=" + c.VisibilityDB,
		"BIND_ON_IP=" + c.Host,
		"FRONTEND_HTTP_PORT=" + strconv.Itoa(c.Ports[portFrontHTTP]),
		"DYNAMIC_CONFIG_FILE_PATH=" + filepath.Join(c.Repo, "deploy", "temporal", "dynamicconfig.yaml"),
		// Warnings and errors only: at info the services log every shard and membership change.
		"LOG_LEVEL=warn",
	}
	for _, s := range temporalServices {
		key := "temporal-" + s
		upper := strings.ToUpper(s)
		env = append(env, upper+"_GRPC_PORT="+strconv.Itoa(c.Ports[key]),
			upper+"_MEMBERSHIP_PORT="+strconv.Itoa(c.Ports[key+".membership"]))
	}
	// Connections per process: the four stay near 30 of Postgres's 100, beside badged's processes.
	conns := map[string][2]int{"history": {12, 2}, "matching": {6, 2}, "frontend": {4, 3}, "worker": {3, 2}}
	var procs []*Process
	for _, s := range temporalServices {
		key := "temporal-" + s
		penv := append([]string{
			"PROMETHEUS_ENDPOINT=" + c.addr(key+".metrics"),
			"SQL_MAX_CONNS=" + strconv.Itoa(conns[s][0]), "SQL_MAX_IDLE_CONNS=" + strconv.Itoa(conns[s][0]),
			"SQL_VIS_MAX_CONNS=" + strconv.Itoa(conns[s][1]),
		}, env...)
		args := []string{"--config-file", filepath.Join(c.Repo, "deploy", "temporal", "config.yaml"), "--allow-no-auth",
			"start", "--service", s}
		ready := tcpReady(c.addr(key))
		if s == "frontend" {
			ready = c.frontendReady
		}
		procs = append(procs, c.newProcess(key, roleTemporal, c.addr(key), c.Bin.TemporalServer, args, penv, ready))
	}
	return procs
}

// frontendReady asks the frontend's health service.
func (c *Cluster) frontendReady(ctx context.Context) error {
	cl, err := c.dial(ctx, time.Second)
	if err != nil {
		return err
	}
	defer cl.Close()
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err = cl.CheckHealth(cctx, &client.CheckHealthRequest{})
	return err
}

// Dial connects a Temporal client to the cluster's namespace.
func (c *Cluster) Dial(ctx context.Context) (client.Client, error) {
	return c.dial(ctx, 10*time.Second)
}

func (c *Cluster) dial(ctx context.Context, timeout time.Duration) (client.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return client.DialContext(dctx, client.Options{HostPort: c.FrontendAddr(), Namespace: c.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
}

// temporalSchema creates Temporal's two databases and brings them to the server's schema with
// deploy/temporal/schema.sh, the script the compose stack runs, and the SQL tool built with the server.
func (c *Cluster) temporalSchema(ctx context.Context) error {
	host, port, user, password := c.postgresParts()
	cmd := exec.CommandContext(ctx, "sh", filepath.Join(c.Repo, "deploy", "temporal", "schema.sh"))
	cmd.Env = []string{
		"PATH=" + filepath.Dir(c.Bin.SQLTool) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"SQL_PLUGIN=postgres12", "SQL_HOST=" + host, "SQL_PORT=" + port, "SQL_USER=" + user, "SQL_PASSWORD=" + password,
		"DBNAME=" + c.TemporalDB, "VISIBILITY_DBNAME=" + c.VisibilityDB, "SQL_CREATE_DATABASE=true",
	}
	log, err := os.OpenFile(filepath.Join(c.Dir, "logs", "temporal-schema.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w (see %s)", cmd.Args[1], err, log.Name())
	}
	return nil
}

// registerNamespace registers the namespace and the search attributes badged's workflows set, retrying while
// the services find each other and the new namespace reaches their caches.
func (c *Cluster) registerNamespace(ctx context.Context) error {
	cl, err := c.Dial(ctx)
	if err != nil {
		return err
	}
	defer cl.Close()
	var last error
	for {
		last = setup.EnsureNamespace(ctx, cl, c.Namespace, 72*time.Hour)
		if last == nil {
			last = setup.EnsureSearchAttributes(ctx, cl, c.Namespace, workflows.SearchAttributeTypes())
		}
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
