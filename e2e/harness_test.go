// Package e2e runs the whole issuance pipeline in-process: the HTTP API, a real embedded Temporal server and worker,
// the local Postgres, the dev chain and a real SMTP server. It holds tests only; the stack is wired by package wire, as
// `badged dev` is (cmd/badged/serve.go), from test settings.
//
// Its tests may import every package of the module; they start `badged` processes through its binary and
// deploy/cluster.
package e2e

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
	_ "time/tzdata" // Asia/Seoul must load on machines without a zoneinfo database

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/api"
	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/internal/webhook"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/temporal/devserver"
	"github.com/badged/badged/wire"
	"github.com/badged/badged/workflows"
)

// Fixed settings of every stack.
const (
	mailDomain   = "badged.test"
	mailFrom     = "Badged <noreply@" + mailDomain + ">"
	smtpUser     = "badged"
	smtpPassword = "e2e-secret"
)

// The history service never fires a timer task earlier than now + history.timerProcessorMaxTimeShift (1 s by
// default), which floors every activity retry delay, NextRetryDelay included, at about 1 s. The test stack lowers
// it so that testClasses' 50 ms intervals are what the retries really wait.
const (
	timerShiftKey = "history.timerProcessorMaxTimeShift"
	timerShift    = 50 * time.Millisecond
)

// testClasses replace the classes of temporal/retry-policy.json: the same codes and classes, with intervals short
// enough that a failure test sees a class exhaust its attempts in about a second. remote keeps enough attempts
// (about 2 s of retries) for a test to clear an SMTP fault in between.
const testClasses = `{
  "permanent": {"retryable": false},
  "internal":  {"retryable": true, "initialInterval": "50ms", "backoffCoefficient": 2.0, "maximumInterval": "500ms", "maximumAttempts": 3},
  "transient": {"retryable": true, "initialInterval": "50ms", "backoffCoefficient": 2.0, "maximumInterval": "500ms", "maximumAttempts": 5},
  "remote":    {"retryable": true, "initialInterval": "50ms", "backoffCoefficient": 2.0, "maximumInterval": "500ms", "maximumAttempts": 8},
  "chain":     {"retryable": true, "initialInterval": "50ms", "backoffCoefficient": 2.0, "maximumInterval": "500ms", "maximumAttempts": 4},
  "lock":      {"retryable": true, "initialInterval": "50ms", "backoffCoefficient": 2.0, "maximumInterval": "500ms", "maximumAttempts": 5},
  "webhook":   {"retryable": true, "initialInterval": "50ms", "backoffCoefficient": 2.0, "maximumInterval": "200ms", "maximumAttempts": 40}
}`

// stackOptions tune a stack; the zero value is what the tests use.
type stackOptions struct {
	logLevel         slog.Level          // of the API, activities and Temporal logs; 0 (Info) is raised to Warn
	workerActivities int                 // MaxConcurrentActivities of the worker; 0 = the worker's default
	anchorWait       time.Duration       // activities.AnchorWait; 0 = testAnchorWait
	anchorMinWait    time.Duration       // activities.AnchorMinWait
	starter          api.IssuanceStarter // how the API starts workflows; nil = temporal.Starter on the stack's client
	temporalUI       bool                // the embedded Temporal also serves its Web UI (stack.Temporal.UIAddr)
	chainDir         string              // the dev chain's DataDir, so a test can restart it on its blocks (startChain); "" = in memory
	// workerWebhookURLs is the worker's webhook URL policy; nil = testWebhookURLs, the API's. A stricter one plays
	// a deployment whose policy was tightened after its endpoints were created.
	workerWebhookURLs *webhook.URLPolicy
	// redriveWindow is REDRIVE_WINDOW of the stack's starter: 0 (the tests' default) completes issuance workflows
	// at the end of their pipeline, as before the redrive Update; set, those with retryable failures wait for it.
	redriveWindow time.Duration
}

// testWebhookURLs is the webhook URL policy of `badged dev`: test receivers listen on http://127.0.0.1.
var testWebhookURLs = webhook.URLPolicy{AllowHTTP: true, AllowPrivate: true}

// testAnchorWait is how long credentials gather for a shared anchor transaction in tests: shorter than the
// production default (activities.DefaultAnchorWait), so tests that issue one after another do not wait for it.
const testAnchorWait = 200 * time.Millisecond

// stack is one complete badged deployment inside the test process.
type stack struct {
	DB       *db.DB
	Temporal *devserver.Server
	Client   client.Client
	Chain    *devchain.Chain
	SMTP     *smtptest.Server
	Issuer   *issuer.Service
	Acts     *activities.Activities
	Outbox   *notify.Outbox
	HTTP     *httptest.Server
	BaseURL  string   // PublicBaseURL = the httptest server's URL
	APIDeps  api.Deps // what HTTP's handler was built from, for a test that needs a second one (another clock)
	// StopWorker stops the worker started by newStack (idempotent); tests that kill it start another with
	// temporal.NewWorker on Client and Acts.
	StopWorker func()
}

// newStack starts every component on loopback ports and stops them when the test ends (in reverse order).
func newStack(tb testing.TB, opts ...stackOptions) *stack {
	tb.Helper()
	var o stackOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.logLevel < slog.LevelWarn {
		o.logLevel = slog.LevelWarn
	}
	if o.anchorWait == 0 {
		o.anchorWait = testAnchorWait
	}
	log := slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: o.logLevel}))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := &stack{DB: dbtest.New(tb)}

	s.startTemporal(tb, ctx, map[string]any{timerShiftKey: timerShift}, o.temporalUI)

	var err error
	s.startChain(tb, "127.0.0.1:0", o.chainDir)

	s.SMTP = smtptest.Start(tb, smtptest.Options{Username: smtpUser, Password: smtpPassword})
	store, err := blob.NewLocal(tb.TempDir())
	require.NoError(tb, err)
	ring, err := credential.NewKeyring("e2e:" + base64.StdEncoding.EncodeToString(randomBytes(tb, 32)))
	require.NoError(tb, err)
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(tb, err)

	// The listener exists before the handler, so the handler and the issuer know their public base URL.
	s.HTTP = httptest.NewUnstartedServer(nil)
	s.BaseURL = "http://" + s.HTTP.Listener.Addr().String()
	chainCfg := chain.Config{RPCURL: s.Chain.URL(), PrivateKey: s.Chain.PrivateKeyHex(), ChainID: devchain.ChainID,
		PollInterval: 20 * time.Millisecond, ReceiptTimeout: 20 * time.Second}
	sender, err := chain.AddressOf(chainCfg.PrivateKey)
	require.NoError(tb, err)
	p := wire.Parts{DB: s.DB, Blob: store, Keyring: ring, BaseURL: s.BaseURL, Chain: &chainCfg, Client: s.Client,
		Anchoring: &issuer.AnchorAccount{ChainID: devchain.ChainID, Address: sender}, Location: seoul, Log: log,
		// Receivers are httptest servers on loopback: private addresses allowed, as under `badged dev`.
		WebhookURLs: testWebhookURLs, RedriveWindow: o.redriveWindow}

	smtpSender, err := notify.NewSMTP(notify.SMTPConfig{Host: s.SMTP.Host, Port: s.SMTP.Port, TLS: notify.TLSMandatory,
		Auth: notify.AuthPlain, Username: smtpUser, Password: smtpPassword, From: mailFrom, MessageIDDomain: mailDomain,
		Timeout: 10 * time.Second, HELO: "e2e.badged.test",
		TLSConfig: &tls.Config{RootCAs: s.SMTP.RootCAs, ServerName: s.SMTP.Host, MinVersion: tls.VersionTLS12}})
	require.NoError(tb, err)
	s.Outbox, err = notify.NewOutbox(tb.TempDir(), mailFrom)
	require.NoError(tb, err)
	// The worker's own pool, as `badged dev` gives it.
	workerDB, closeWorkerDB, err := p.WorkerDB(ctx, dbtest.URL(tb, s.DB), true)
	require.NoError(tb, err)
	tb.Cleanup(closeWorkerDB)
	acts := &activities.Activities{Notifier: &notify.Notifier{Email: smtpSender, Kakao: s.Outbox}, Outbox: s.Outbox,
		MessageDomain: mailDomain, Policy: testPolicy(tb), AnchorWait: o.anchorWait, AnchorMinWait: o.anchorMinWait,
		Webhooks: activities.Webhooks{Sender: webhook.NewSender(*cmp.Or(o.workerWebhookURLs, &testWebhookURLs), 5*time.Second),
			DisableAfter: time.Hour, DisableAfterFailures: 5}}
	// Not ctx: the dispatcher runs until the test ends.
	w, err := wire.StartWorker(context.Background(), p, wire.Worker{DB: workerDB, Acts: acts,
		Options: temporal.WorkerOptions{MaxConcurrentActivities: o.workerActivities}, DispatchInterval: 20 * time.Millisecond})
	require.NoError(tb, err)
	tb.Cleanup(w.Stop)
	s.Acts, s.StopWorker = w.Acts, w.StopTemporal

	var closeAPI func()
	s.APIDeps, closeAPI, err = p.API()
	require.NoError(tb, err)
	tb.Cleanup(closeAPI)
	s.Issuer = s.APIDeps.Issuer
	s.APIDeps.Issuances = cmp.Or[api.IssuanceStarter](o.starter, s.APIDeps.Issuances)
	s.APIDeps.KeyCacheTTL = 5 * time.Second // API_KEY_CACHE_TTL's default, as `badged dev` runs
	s.HTTP.Config.Handler = api.NewHandler(s.APIDeps)
	s.HTTP.Start()
	tb.Cleanup(s.HTTP.Close)
	return s
}

// startChain starts the stack's dev chain at addr over dir ("" = in memory); it stops when the test ends.
func (s *stack) startChain(tb testing.TB, addr, dir string) {
	tb.Helper()
	c, err := devchain.Start(devchain.Config{Addr: addr, DataDir: dir, BlockInterval: 50 * time.Millisecond})
	require.NoError(tb, err, "dev chain")
	tb.Cleanup(func() { _ = c.Close() })
	s.Chain = c
}

// startTemporal starts the embedded Temporal server with the issuance search attributes (and its Web UI when ui is
// set) and dials it; both stop
// when the test ends.
func (s *stack) startTemporal(tb testing.TB, ctx context.Context, dynamicConfig map[string]any, ui bool) {
	tb.Helper()
	quiet := slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelError}))
	uiAddr := ""
	if ui {
		uiAddr = "127.0.0.1:0" // a free port
	}
	srv, err := devserver.Start(ctx, devserver.Options{FrontendAddr: "127.0.0.1:0", SearchAttributes: workflows.SearchAttributeTypes(),
		Logger: quiet, DynamicConfig: dynamicConfig, UIAddr: uiAddr})
	require.NoError(tb, err, "embedded temporal")
	tb.Cleanup(func() { _ = srv.Stop() })
	s.Temporal = srv
	s.Client, err = client.DialContext(ctx, client.Options{HostPort: srv.FrontendAddr(), Namespace: srv.Namespace(),
		Logger: sdklog.NewStructuredLogger(quiet)})
	require.NoError(tb, err, "dial temporal")
	tb.Cleanup(s.Client.Close)
}

// testPolicy is the shipped retry policy (every code and its class) with testClasses in place of its classes.
func testPolicy(tb testing.TB) *retrypolicy.Policy {
	tb.Helper()
	var doc map[string]json.RawMessage
	require.NoError(tb, json.Unmarshal(temporal.DefaultRetryPolicy, &doc))
	doc["classes"] = json.RawMessage(testClasses)
	data, err := json.Marshal(doc)
	require.NoError(tb, err)
	p, err := retrypolicy.Parse(data)
	require.NoError(tb, err)
	return p
}

func randomBytes(tb testing.TB, n int) []byte {
	tb.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(tb, err)
	return b
}

// httpClient is the HTTP client of the tests; the stack's server answers on loopback.
var httpClient = &http.Client{Timeout: 60 * time.Second}
