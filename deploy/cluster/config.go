package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/badged/badged/internal/freeport"
)

// Config is one cluster: where its state lives, the Postgres it uses, its size, its ports and its binaries. It is
// saved as cluster.json in Dir, so later invocations (down, status, kill…) act on the same processes.
type Config struct {
	// Name tells clusters on one Postgres apart: its databases and its state directory carry it (DirFor,
	// Databases). "" is the cluster `make cluster` has always run, with the names it always had.
	Name string
	Dir  string // state: cluster.json, pids/, logs/, and the data of S3, SMTP, the chain and the badged processes
	Repo string // repository root: deploy/temporal/{config.yaml,dynamicconfig.yaml,schema.sh}

	// Postgres is the server every database lives on, e.g. postgres://postgres@localhost:5432/postgres; its
	// database part is ignored. The role must be allowed to create databases (and btree_gin in the visibility one).
	Postgres     string
	TemporalDB   string // Temporal's executions database, default temporal (temporal_NAME)
	VisibilityDB string // Temporal's visibility database, default temporal_visibility (temporal_visibility_NAME)
	BadgedDB     string // badged's database, default badged_cluster (badged_cluster_NAME), apart from `make run`'s badged
	BadgedPool   int    // connections per badged process (pool_max_conns), default 8: the whole cluster stays under Postgres's 100
	Namespace    string // Temporal namespace, default "default"

	APIs    int // `badged serve` processes behind the balancer, default 2
	Workers int // `badged worker` processes, default 2

	Host  string         // loopback address everything binds, default 127.0.0.1
	Ports map[string]int // by PortKeys; DefaultPorts or FreePorts

	Bin Binaries
	Env []string // added to every badged process's environment after the cluster's own (tests: RATE_LIMIT_RPS=0…)

	// DieWithParent makes every process die with the process that started it (tests); otherwise they run
	// detached, in sessions of their own, until `down`.
	DieWithParent bool `json:"-"`
}

// Binaries are the executables the cluster runs.
type Binaries struct {
	TemporalServer string // Temporal's cmd/server, from the go.temporal.io/server module in go.mod (BuildTemporal)
	SQLTool        string // Temporal's cmd/tools/sql (temporal-sql-tool), same module
	Badged         string // a production build of badged (make build: bin/badged)
	Tool           string // badged-cluster itself: it serves SMTP, the chain node and the balancer
	Versitygw      string // the S3 server (make tools)
}

// The ports every cluster has, by key; the badged processes add api<N>, api<N>.metrics and worker<N>.metrics
// (every badged process serves /metrics on a listener of its own, METRICS_ADDR).
const (
	portLB        = "lb"
	portS3        = "s3"
	portSMTP      = "smtp"
	portChain     = "chain"
	portFrontHTTP = "temporal-frontend.http"
	portUI        = "temporal-ui"
)

// temporalServices are Temporal's services, each a process of its own, in the order they start.
var temporalServices = []string{"history", "matching", "frontend", "worker"}

// conventional is the usual port of each part; DefaultPorts adds an offset to them.
var conventional = map[string]int{
	portLB: 8080, portS3: 7070, portSMTP: 1025, portChain: 8545, portFrontHTTP: 7243, portUI: 8233,
	"temporal-frontend": 7233, "temporal-history": 7234, "temporal-matching": 7235, "temporal-worker": 7239,
	"temporal-frontend.membership": 6933, "temporal-history.membership": 6934,
	"temporal-matching.membership": 6935, "temporal-worker.membership": 6939,
	// Temporal's metrics (compose scrapes one server on 8000); one per process here.
	"temporal-frontend.metrics": 8000, "temporal-history.metrics": 8001,
	"temporal-matching.metrics": 8002, "temporal-worker.metrics": 8003,
}

// PortKeys lists every port a cluster of apis and workers needs.
func PortKeys(apis, workers int) []string {
	keys := make([]string, 0, len(conventional)+2*apis+workers)
	for k := range conventional {
		keys = append(keys, k)
	}
	for i := 1; i <= apis; i++ {
		keys = append(keys, apiName(i), apiName(i)+".metrics")
	}
	for i := 1; i <= workers; i++ {
		keys = append(keys, workerName(i)+".metrics")
	}
	return keys
}

// DefaultOffset is what `make cluster` adds to each part's usual port.
const DefaultOffset = 10000

// NameFor is the name of a cluster started with --name name and --port-offset offset: name when given; otherwise
// "" for the default offset (the cluster `make cluster` has always run) and "p<offset>" for any other, so that a
// second cluster, which needs other ports anyway, gets databases and a state directory of its own without more
// flags.
func NameFor(name string, offset int) string {
	if name != "" || offset == DefaultOffset {
		return name
	}
	return "p" + strconv.Itoa(offset)
}

// namePattern is what a cluster name may be: it ends up in database names, which Temporal's SQL tool writes
// unquoted (so lower case, digits and _ only), within Postgres's 63 bytes with the longest prefix.
var namePattern = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

// CheckName reports whether name can name a cluster.
func CheckName(name string) error {
	if name != "" && !namePattern.MatchString(name) {
		return fmt.Errorf("cluster name %q: 1 to 32 of a-z, 0-9 and _", name)
	}
	return nil
}

// DirFor is the default state directory of the cluster named name: .data/cluster, or .data/cluster-NAME.
func DirFor(name string) string {
	if name == "" {
		return filepath.Join(".data", "cluster")
	}
	return filepath.Join(".data", "cluster-"+name)
}

// dbName is a default database name of the cluster: base, or base_NAME.
func (c Config) dbName(base string) string {
	if c.Name == "" {
		return base
	}
	return base + "_" + c.Name
}

// Databases are the cluster's three databases: badged's, Temporal's executions and visibility ones.
func (c Config) Databases() []string { return []string{c.BadgedDB, c.TemporalDB, c.VisibilityDB} }

// DefaultPorts are the usual ports plus offset (10000 for `make cluster`, so `make run` on 8080, 7233, 8233 and
// 8545 can run beside it): the balancer 18080, the APIs 18081… (their metrics 19081…), the workers' metrics 19091…, Temporal's frontend
// 17233, S3 17070, SMTP 11025, the chain 18545.
func DefaultPorts(apis, workers, offset int) map[string]int {
	ports := map[string]int{}
	for k, p := range conventional {
		ports[k] = p + offset
	}
	for i := 1; i <= apis; i++ {
		ports[apiName(i)] = 8080 + i + offset
		ports[apiName(i)+".metrics"] = 9080 + i + offset
	}
	for i := 1; i <= workers; i++ {
		ports[workerName(i)+".metrics"] = 9090 + i + offset
	}
	return ports
}

// FreePorts picks a free port for every key (tests), below 32768 (internal/freeport says why).
func FreePorts(host string, apis, workers int) (map[string]int, error) {
	keys := PortKeys(apis, workers)
	picked, err := freeport.Pick(host, len(keys))
	if err != nil {
		return nil, err
	}
	ports := make(map[string]int, len(keys))
	for i, k := range keys {
		ports[k] = picked[i]
	}
	return ports, nil
}

func apiName(i int) string    { return "api" + strconv.Itoa(i) }
func workerName(i int) string { return "worker" + strconv.Itoa(i) }

// WithDefaults fills the unset fields.
func (c Config) WithDefaults() Config {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.Dir, DirFor(c.Name))
	def(&c.Repo, ".")
	def(&c.Postgres, "postgres://postgres@localhost:5432/postgres?sslmode=disable")
	def(&c.TemporalDB, c.dbName("temporal"))
	def(&c.VisibilityDB, c.dbName("temporal_visibility"))
	def(&c.BadgedDB, c.dbName("badged_cluster"))
	def(&c.Namespace, "default")
	def(&c.Host, "127.0.0.1")
	if c.BadgedPool == 0 {
		c.BadgedPool = 8
	}
	if c.APIs == 0 {
		c.APIs = 2
	}
	if c.Workers == 0 {
		c.Workers = 2
	}
	if c.Ports == nil {
		c.Ports = DefaultPorts(c.APIs, c.Workers, DefaultOffset)
	}
	if abs, err := filepath.Abs(c.Dir); err == nil {
		c.Dir = abs
	}
	if abs, err := filepath.Abs(c.Repo); err == nil {
		c.Repo = abs
	}
	return c
}

// Validate reports what is missing or wrong.
func (c Config) Validate() error {
	var errs []error
	if err := CheckName(c.Name); err != nil {
		errs = append(errs, err)
	}
	if c.APIs < 1 || c.APIs > 8 || c.Workers < 1 || c.Workers > 8 {
		errs = append(errs, fmt.Errorf("apis %d, workers %d: each must be 1 to 8", c.APIs, c.Workers))
	}
	if u, err := url.Parse(c.Postgres); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Hostname() == "" {
		errs = append(errs, fmt.Errorf("postgres %q: must be a postgres:// URL with a host", c.Postgres))
	}
	for _, k := range PortKeys(c.APIs, c.Workers) {
		if p := c.Ports[k]; p <= 0 || p > 65535 {
			errs = append(errs, fmt.Errorf("port %s: %d", k, p))
		} else if strings.HasPrefix(k, "temporal-") && p > 32767 {
			// Temporal stores them in a SMALLINT column of cluster_membership; a service fails to join with more.
			errs = append(errs, fmt.Errorf("port %s: %d: Temporal's ports must be below 32768", k, p))
		}
	}
	for name, path := range map[string]string{"temporal server": c.Bin.TemporalServer, "temporal-sql-tool": c.Bin.SQLTool,
		"badged": c.Bin.Badged, "badged-cluster": c.Bin.Tool, "versitygw": c.Bin.Versitygw} {
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			errs = append(errs, fmt.Errorf("%s binary %q: not found", name, path))
		}
	}
	if _, err := os.Stat(filepath.Join(c.Repo, "deploy", "temporal", "config.yaml")); err != nil {
		errs = append(errs, fmt.Errorf("repository %s: no deploy/temporal/config.yaml", c.Repo))
	}
	return errors.Join(errs...)
}

// addr is host:port of a port key.
func (c Config) addr(key string) string {
	return net.JoinHostPort(c.Host, strconv.Itoa(c.Ports[key]))
}

// FrontendAddr is where Temporal clients connect (TEMPORAL_ADDRESS, `temporal --address`).
func (c Config) FrontendAddr() string { return c.addr("temporal-frontend") }

// BaseURL is the balancer in front of the APIs: the cluster's PUBLIC_BASE_URL.
func (c Config) BaseURL() string { return "http://" + c.addr(portLB) }

// UIURL is the Temporal UI of the cluster (badged-cluster serve-ui): the badged processes' TEMPORAL_UI_URL.
func (c Config) UIURL() string { return "http://" + c.addr(portUI) }

// S3Endpoint is the S3 server's URL.
func (c Config) S3Endpoint() string { return "http://" + c.addr(portS3) }

// ChainURL is the chain node's JSON-RPC URL.
func (c Config) ChainURL() string { return "http://" + c.addr(portChain) }

// MailJournal is the file the SMTP server appends every accepted message to (smtptest.ReadJournal reads it).
func (c Config) MailJournal() string { return filepath.Join(c.Dir, "mail", "messages.jsonl") }

// DatabaseURL is the URL of database name on the cluster's Postgres.
func (c Config) DatabaseURL(name string) string {
	u, _ := url.Parse(c.Postgres)
	u.Path = "/" + name
	return u.String()
}

const configFile = "cluster.json"

// save writes the configuration to Dir/cluster.json.
func (c Config) save() error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(c.Dir, configFile), append(data, '\n'))
}

// Load reads the configuration a cluster in dir was started with.
func Load(dir string) (Config, error) {
	data, err := os.ReadFile(filepath.Join(dir, configFile))
	if err != nil {
		return Config{}, fmt.Errorf("no cluster in %s: %w", dir, err)
	}
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		return Config{}, fmt.Errorf("%s: %w", filepath.Join(dir, configFile), err)
	}
	return c, nil
}
