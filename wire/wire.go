// Package wire assembles badged's components into a running worker and the HTTP API's dependencies, the one way
// both `badged serve|worker|dev` (cmd/badged) and the in-process e2e stack (e2e/harness_test.go) put them
// together. Its callers open what lies outside the process (database pools, object store, Temporal client, mail
// senders, the chain's settings) and choose the settings; wire decides how the parts meet: which pool each side
// uses, that every issuer names the same anchoring account, what a worker starts beside the Temporal worker and in
// which order it all stops.
//
// It is the composition root, the top floor below cmd/: it may import every package of the module except cmd/ and
// the embedded dev servers (temporal/devserver, internal/chain/devchain), which a production build leaves out
// (cmd/badged/build_test.go). Only cmd/ and the e2e tests import it; nothing under internal/ may.
package wire

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/webhook"
	"github.com/badged/badged/temporal"
)

// Parts are the components the API and the worker share, opened by the caller and closed by it after Stop.
type Parts struct {
	DB      *db.DB              // the API's pool, and the only one of a process that runs the worker alone
	Blob    blob.Store          // badge images, baked badges, media
	Keyring *credential.Keyring // seals issuer keys
	BaseURL string              // PUBLIC_BASE_URL: what issuers, links and badge pages are named under
	// Anchoring is the account the issuers' controller documents name as the sender of anchor transactions;
	// nil: they name none.
	Anchoring *issuer.AnchorAccount
	// Chain is where credentials are anchored (the worker) and re-checked (the API's verification page); nil: no
	// chain, credentials are signed but not anchored.
	Chain       *chain.Config
	Client      client.Client     // Temporal
	Location    *time.Location    // the service's time zone
	Log         *slog.Logger      // of every part
	Metrics     *metrics.Metrics  // nil: nothing is measured (tests)
	WebhookURLs webhook.URLPolicy // what webhook endpoint URLs may point at: checked at creation (API) and delivery (worker)
	// RedriveWindow is how long the issuance workflows started here wait for a re-drive after their pipeline left
	// retryable failures (REDRIVE_WINDOW); 0: they complete at once.
	RedriveWindow time.Duration
}

// Issuer returns the issuer service on d, naming p's anchoring account.
func (p Parts) Issuer(d *db.DB) *issuer.Service {
	iss := issuer.New(d, p.Keyring, p.BaseURL)
	iss.Anchoring = p.Anchoring
	return iss
}

// WorkerDB returns the worker's pool: p.DB in a process that runs the worker alone, else a pool of its own on
// url, which close releases. Hundreds of concurrent steps would otherwise hold the API's connections
// (BenchmarkSteadyLoad at 200 requests/s: p50 57 ms and p99 1.5 s on one shared pool, 6–13 ms and 64 ms on two).
func (p Parts) WorkerDB(ctx context.Context, url string, withAPI bool) (d *db.DB, close func(), err error) {
	if !withAPI {
		return p.DB, func() {}, nil
	}
	d, err = db.Open(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	return d, d.Close, nil
}

// API returns the HTTP API's dependencies on p, its issuer on p.DB; the caller adds its own settings (limits,
// caches, the stats recorder). close releases the chain verifier.
func (p Parts) API() (deps api.Deps, close func(), err error) {
	starter := temporal.Starter{Client: p.Client, DB: p.DB, BaseURL: p.BaseURL, RedriveWindow: p.RedriveWindow}
	deps = api.Deps{DB: p.DB, Blob: p.Blob, Log: p.Log, Location: p.Location, PublicBaseURL: p.BaseURL,
		Issuances: starter, Issuer: p.Issuer(p.DB), Metrics: p.Metrics, Webhooks: starter, WebhookURLs: p.WebhookURLs}
	close = func() {}
	if p.Chain != nil {
		v, err := chain.NewVerifier(p.Chain.RPCURL)
		if err != nil {
			return api.Deps{}, nil, fmt.Errorf("chain verifier: %w", err)
		}
		deps.Chain, close = v, v.Close
	}
	return deps, close, nil
}
