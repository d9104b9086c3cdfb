package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	dcluster "github.com/badged/badged/deploy/cluster"
	"github.com/badged/badged/internal/blob/s3test"
	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/internal/notify/smtptest"
)

// cluster is badged deployed as separate processes: API processes behind a round-robin load balancer and worker
// processes, all against one Temporal server and one Postgres database, with the dev chain, an SMTP server and an
// S3 server (versitygw) as the outside systems. The test process hosts Temporal, the chain and SMTP; the
// embedded stack's helpers (mustTenant, mustIssue, count…) work on it through the embedded *stack, whose BaseURL
// is the load balancer.
type cluster struct {
	*stack
	S3        *s3test.Server
	APIs      []*proc
	Workers   []*proc
	ChainNode *proc // the chain node when it runs as a process of its own (clusterOptions.chainProcess)

	chainDir    string
	chainAddr   string
	chainURL    string
	chainKey    string // hex private key of the anchoring sender
	chainSender common.Address
	env         []string // every process's configuration

	// Temporal is Temporal's own server as processes of deploy/cluster instead of the embedded one; the SMTP
	// server is then a process too, and what it accepted is read from its journal.
	tc *dcluster.Cluster
}

// messages are the messages the cluster's SMTP server accepted, oldest first.
func (c *cluster) messages(tb testing.TB) []smtptest.Message {
	tb.Helper()
	if c.tc == nil {
		return c.SMTP.Messages()
	}
	msgs, err := smtptest.ReadJournal(c.tc.MailJournal())
	require.NoError(tb, err)
	return msgs
}

// clusterOptions size a cluster.
type clusterOptions struct {
	apis, workers int
	chainProcess  bool // run the chain node as a separate process (a test can kill -9 it), not in the test process
}

// newCluster starts the shared components, then the API and worker processes, and waits until each answers.
func newCluster(tb testing.TB, o clusterOptions) *cluster {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := &cluster{stack: &stack{DB: dbtest.New(tb)}}
	// The shipped retry policy runs in the processes, so the server keeps its own timer settings.
	c.startTemporal(tb, ctx, nil, false)
	srv := c.Temporal

	// The chain keeps its blocks in a directory, so it can be stopped and started again at the same address.
	c.chainDir = tb.TempDir()
	if o.chainProcess {
		c.startChainProcess(tb)
	} else {
		c.startChain(tb, "127.0.0.1:0")
		tb.Cleanup(func() {
			if c.Chain != nil {
				_ = c.Chain.Close()
			}
		})
		c.chainURL, c.chainKey, c.chainSender = c.Chain.URL(), c.Chain.PrivateKeyHex(), c.Chain.Address()
		c.chainAddr = strings.TrimPrefix(c.chainURL, "http://")
	}

	// Plain SMTP without AUTH: the processes have no way to trust the test server's self-signed certificate.
	c.SMTP = smtptest.Start(tb, smtptest.Options{NoTLS: true})
	c.S3 = s3test.Start(tb)

	// The load balancer is the public base URL; it round-robins over the API processes.
	apiURLs := make([]*url.URL, o.apis)
	for i := range apiURLs {
		apiURLs[i] = &url.URL{Scheme: "http", Host: freeAddr(tb)}
	}
	lb := httptest.NewServer(roundRobin(apiURLs))
	tb.Cleanup(lb.Close)
	c.BaseURL = lb.URL

	c.env = []string{
		"PATH=/usr/bin:/bin",
		// 8 connections per process: four processes and the test stay well under max_connections (100).
		"DATABASE_URL=" + withQuery(tb, dbtest.URL(tb, c.DB), "pool_max_conns", "8"),
		"TEMPORAL_ADDRESS=" + srv.FrontendAddr(),
		"TEMPORAL_NAMESPACE=" + srv.Namespace(),
		"ISSUER_KEY_RING=cluster:" + base64.StdEncoding.EncodeToString(randomBytes(tb, 32)),
		"PUBLIC_BASE_URL=" + lb.URL,
		"CHAIN_RPC_URL=" + c.chainURL,
		"CHAIN_PRIVATE_KEY=" + c.chainKey,
		"CHAIN_ID=" + strconv.Itoa(devchain.ChainID),
		"SMTP_HOST=" + c.SMTP.Host,
		"SMTP_PORT=" + strconv.Itoa(c.SMTP.Port),
		"SMTP_TLS=none",
		"SMTP_FROM=" + mailFrom,
		"BLOB_BACKEND=s3",
		"S3_ENDPOINT=" + c.S3.Endpoint,
		"S3_REGION=" + c.S3.Region,
		"S3_BUCKET=" + c.S3.Bucket,
		"S3_ACCESS_KEY=" + c.S3.AccessKey,
		"S3_SECRET_KEY=" + c.S3.SecretKey,
		"S3_PATH_STYLE=true",
		"DATA_DIR=" + tb.TempDir(),
		"RATE_LIMIT_RPS=0",
		"SHUTDOWN_TIMEOUT=10s",
		"LOG_FORMAT=text",
		"LOG_LEVEL=info",
		"TZ=UTC",
	}
	for i, u := range apiURLs {
		metricsAddr := freeAddr(tb)
		p := newProc(tb, fmt.Sprintf("api%d", i+1), u.String()+"/readyz",
			append(c.env, "HTTP_ADDR="+u.Host, "METRICS_ADDR="+metricsAddr), "serve")
		p.Metrics = "http://" + metricsAddr + "/metrics"
		p.Start(tb)
		c.APIs = append(c.APIs, p)
	}
	for i := range o.workers {
		metricsAddr := freeAddr(tb)
		p := newProc(tb, fmt.Sprintf("worker%d", i+1), "http://"+metricsAddr+"/metrics",
			append(c.env, "METRICS_ADDR="+metricsAddr), "worker")
		p.Metrics = p.Ready
		p.Start(tb)
		c.Workers = append(c.Workers, p)
	}
	return c
}

// startChain starts the dev chain over chainDir at addr.
func (c *cluster) startChain(tb testing.TB, addr string) {
	tb.Helper()
	ch, err := devchain.Start(devchain.Config{Addr: addr, DataDir: c.chainDir, BlockInterval: 50 * time.Millisecond})
	require.NoError(tb, err, "dev chain")
	c.Chain = ch
}

// roundRobin is the load balancer in front of the API processes: each request goes to the next backend. A
// backend that refuses the connection answers 502, as a real balancer without health checks would.
func roundRobin(backends []*url.URL) http.Handler {
	var next atomic.Uint64
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(backends[next.Add(1)%uint64(len(backends))])
			r.Out.Host = r.In.Host // the APIs build links from PUBLIC_BASE_URL, not Host
		},
	}
}

// scrape sums the samples of one metric family on a process's /metrics whose labels contain every filter
// (`step="notify"`…). A histogram is read through its _count or _sum series.
func (p *proc) scrape(tb testing.TB, name string, filters ...string) float64 {
	tb.Helper()
	require.NotEmpty(tb, p.Metrics, "%s has no metrics listener", p.Name)
	res, err := http.Get(p.Metrics)
	require.NoError(tb, err, "scrape %s", p.Name)
	defer res.Body.Close()
	require.Equal(tb, http.StatusOK, res.StatusCode)
	var sum float64
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		matched := true
		for _, f := range filters {
			matched = matched && strings.Contains(line, f)
		}
		if !matched {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		require.NoError(tb, err, "sample %q", line)
		sum += v
	}
	require.NoError(tb, sc.Err())
	return sum
}

// withQuery sets one query parameter of a URL.
func withQuery(tb testing.TB, raw, key, value string) string {
	tb.Helper()
	u, err := url.Parse(raw)
	require.NoError(tb, err)
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
