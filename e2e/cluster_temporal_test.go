//go:build faults

package e2e

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	dcluster "github.com/badged/badged/deploy/cluster"
	"github.com/badged/badged/internal/blob/s3test"
	"github.com/badged/badged/internal/chain/devchain"
)

// newTemporalCluster starts the topology of `make cluster` with the same code (deploy/cluster): Temporal's own
// server built from go.mod's go.temporal.io/server as four processes on Postgres, API processes behind the
// cluster's balancer, worker processes, and S3, SMTP and the chain node as processes of their own; on free ports,
// in a temporary directory, on Postgres databases made for the test (badged's from dbtest, Temporal's two
// dropped at the end). It returns it as a *cluster, so the helpers and invariants of the cluster tests apply
// unchanged. Every process dies with the test process, whatever ends it.
func newTemporalCluster(tb testing.TB, o clusterOptions) *cluster {
	tb.Helper()
	return newTemporalClusterEnv(tb, o)
}

// newTemporalClusterEnv is newTemporalCluster with settings of badged's processes added to the tests' own (a
// later entry wins), such as a short ORPHAN_AFTER for the persistence-loss drill.
func newTemporalClusterEnv(tb testing.TB, o clusterOptions, env ...string) *cluster {
	tb.Helper()
	repo, err := filepath.Abs("..")
	require.NoError(tb, err)
	// The first build of Temporal's server takes minutes; `make test-faults` runs after it, later runs reuse it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var bin dcluster.Binaries
	bin.TemporalServer, bin.SQLTool, err = dcluster.BuildTemporal(ctx, repo, tb.Output())
	require.NoError(tb, err, "build Temporal's server")
	bin.Badged = buildBinary(tb, "badged-production", "github.com/badged/badged/cmd/badged", "-tags", "production")
	bin.Tool = buildBinary(tb, "badged-cluster", "github.com/badged/badged/cmd/badged-cluster")
	bin.Versitygw, err = s3test.FindBinary()
	require.NoError(tb, err, "run make tools")

	c := &cluster{stack: &stack{DB: dbtest.New(tb)}}
	ports, err := dcluster.FreePorts("127.0.0.1", o.apis, o.workers)
	require.NoError(tb, err)
	cfg := dcluster.Config{
		Dir:          tb.TempDir(),
		Repo:         repo,
		Postgres:     dbtest.ServerURL(),
		TemporalDB:   dbtest.Scratch(tb, "temporal_test"),
		VisibilityDB: dbtest.Scratch(tb, "temporal_visibility_test"),
		BadgedDB:     c.DB.Pool.Config().ConnConfig.Database,
		APIs:         o.apis,
		Workers:      o.workers,
		Ports:        ports,
		Bin:          bin,
		// messageID() and the invariants expect the tests' sender domain; a later entry wins over the cluster's own.
		Env: append([]string{"SMTP_FROM=" + mailFrom, "RATE_LIMIT_RPS=0", "SHUTDOWN_TIMEOUT=10s", "LOG_LEVEL=info", "TZ=UTC"}, env...),
		// Whatever ends the test process (a timeout's panic included), no process of the cluster outlives it.
		DieWithParent: true,
	}
	tc, err := dcluster.New(cfg, tb.Output())
	require.NoError(tb, err)
	tb.Cleanup(func() {
		if tb.Failed() {
			for _, p := range tc.Processes() {
				tb.Logf("--- log of %s (last 4 KB) ---\n%s", p.Name, p.LogTail(4<<10))
			}
		}
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		require.NoError(tb, tc.Down(dctx))
	})
	t0 := time.Now()
	require.NoError(tb, tc.Up(ctx), "cluster up")
	tb.Logf("Temporal cluster up in %s", time.Since(t0).Round(100*time.Millisecond))

	c.tc = tc
	c.BaseURL = tc.BaseURL()
	c.Client, err = tc.Dial(ctx)
	require.NoError(tb, err)
	tb.Cleanup(c.Client.Close)
	u, err := url.Parse(tc.S3Endpoint())
	require.NoError(tb, err)
	c.S3 = &s3test.Server{Endpoint: "http://" + u.Host, Region: dcluster.S3Region, Bucket: dcluster.S3Bucket,
		AccessKey: dcluster.S3AccessKey, SecretKey: dcluster.S3SecretKey}
	key := devchain.DevKey(devchain.DefaultSeed)
	c.chainURL, c.chainSender = tc.ChainURL(), crypto.PubkeyToAddress(key.PublicKey)
	c.chainAddr = strings.TrimPrefix(c.chainURL, "http://")
	for i := 1; i <= o.apis; i++ {
		p := tc.Process("api" + strconv.Itoa(i))
		c.APIs = append(c.APIs, &proc{Name: p.Name, Ready: p.Addr + "/readyz", log: p.LogFile(), ext: p,
			Metrics: fmt.Sprintf("http://%s/metrics", net.JoinHostPort(tc.Host, strconv.Itoa(tc.Ports[p.Name+".metrics"])))})
	}
	for i := 1; i <= o.workers; i++ {
		p := tc.Process("worker" + strconv.Itoa(i))
		c.Workers = append(c.Workers, &proc{Name: p.Name, Ready: p.Addr, Metrics: p.Addr, log: p.LogFile(), ext: p})
	}
	c.ChainNode = &proc{Name: "chain", Ready: c.chainURL, log: tc.Process("chain").LogFile(), ext: tc.Process("chain")}
	return c
}

// temporalProc is one of Temporal's services (history, matching, frontend, worker) as a process of the cluster.
func (c *cluster) temporalProc(service string) *proc {
	p := c.tc.Process("temporal-" + service)
	return &proc{Name: p.Name, Ready: p.Addr, log: p.LogFile(), ext: p}
}
