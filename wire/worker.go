package wire

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/chain/pgstore"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/temporal/setup"
	"github.com/badged/badged/workflows"
)

// Worker says how a worker runs: its steps' own settings and what it starts beside the Temporal worker.
type Worker struct {
	DB *db.DB // the worker's pool (Parts.WorkerDB)
	// Acts holds the steps' own settings (notifier, outbox, mail domain, retry policy, anchor waits, webhook
	// sender); StartWorker fills in the shared parts: DB, Blob, Issuer, Anchor, Location, Log and Metrics.
	Acts    *activities.Activities
	Options temporal.WorkerOptions
	// DispatchInterval and WebhookRetention tune the webhook dispatcher (temporal.WebhookDispatcher).
	DispatchInterval, WebhookRetention time.Duration
	// Housekeeping starts what a deployment's worker owns besides the steps and the webhook dispatcher: the
	// expiry Schedule, the reminder loop, the reconciler of orphaned issuances (after OrphanAfter) and the wallet
	// sweep. The e2e stack leaves it off: its tests start those they exercise, on their own terms.
	Housekeeping bool
	OrphanAfter  time.Duration
	// Namespace is the Temporal namespace of p.Client ("" = default), where StartWorker checks the search
	// attributes the workflows set.
	Namespace string
}

// Running is a started worker.
type Running struct {
	Acts *activities.Activities
	// StopTemporal stops the Temporal worker alone (idempotent), leaving the background loops running: a test
	// that kills the worker starts another with temporal.NewWorker on the same Acts.
	StopTemporal func()
	stops        []func()
}

// Stop stops the background loops, then the Temporal worker (which waits for running steps up to
// Options.StopTimeout), then ends the notifier's idle sessions.
func (r *Running) Stop() {
	for i := len(r.stops) - 1; i >= 0; i-- {
		r.stops[i]()
	}
}

// StartWorker completes w.Acts with p's parts and starts the Temporal worker on p.Client and its background loops;
// they run until Stop, or until ctx ends for the loops.
func StartWorker(ctx context.Context, p Parts, w Worker) (_ *Running, err error) {
	a := w.Acts
	a.DB, a.Blob, a.Issuer, a.Location, a.Log, a.Metrics = w.DB, p.Blob, p.Issuer(w.DB), p.Location, p.Log, p.Metrics
	if p.Chain == nil {
		p.Log.Warn("no CHAIN_RPC_URL: credentials are signed but not anchored")
	} else {
		an, err := chain.New(*p.Chain, pgstore.Store{DB: w.DB})
		if err != nil {
			return nil, err
		}
		a.Anchor = an
		if p.Metrics != nil {
			p.Metrics.Registry.MustRegister(metrics.NewChainRepairCollector(func() metrics.ChainRepairCounts {
				r := an.Repairs()
				return metrics.ChainRepairCounts{Resent: r.Resent, Filled: r.Filled, Failed: r.Failed, Behind: r.Behind}
			}))
		}
	}
	r := &Running{Acts: a}
	defer func() {
		if err != nil {
			r.Stop()
		}
	}()
	if a.Notifier != nil {
		r.stops = append(r.stops, func() { _ = a.Notifier.Close() }) // after the worker stops: ends idle SMTP sessions
	}
	checkSearchAttributes(ctx, p, w.Namespace)
	tw := temporal.NewWorker(p.Client, a, w.Options)
	if err := tw.Start(); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	r.StopTemporal = sync.OnceFunc(tw.Stop) // waits for running activities to finish or time out
	r.stops = append(r.stops, r.StopTemporal)
	starter := temporal.Starter{Client: p.Client, DB: w.DB, BaseURL: p.BaseURL, RedriveWindow: p.RedriveWindow}
	if w.Housekeeping {
		if err := temporal.EnsureExpirySchedule(ctx, p.Client); err != nil {
			return nil, err
		}
		if err := temporal.EnsureReminderWorkflow(ctx, p.Client); err != nil {
			return nil, err
		}
		r.stops = append(r.stops, Background(ctx, (&temporal.Reconciler{DB: w.DB, Starter: starter, Log: p.Log,
			Grace: w.OrphanAfter}).Run))
	}
	r.stops = append(r.stops, Background(ctx, temporal.WebhookDispatcher{DB: w.DB, Starter: starter, Log: p.Log,
		Interval: w.DispatchInterval, Retention: w.WebhookRetention}.Run))
	if w.Housekeeping {
		// Anchors wallet copies (claimed inline by the API) and purges expired wallet codes, tokens and nonces.
		r.stops = append(r.stops, Background(ctx, activities.WalletSweep{DB: w.DB, Anchor: a.Anchor, Issuer: a.Issuer, Log: p.Log,
			Metrics: p.Metrics}.Run))
	}
	p.Log.Info("worker running", "task_queue", workflows.TaskQueue)
	return r, nil
}

// Background runs loop until the returned function is called, which waits for loop to return.
func Background(ctx context.Context, loop func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		loop(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// checkSearchAttributes says once, at start, which of the workflows' search attributes the namespace lacks: the
// workflows upsert them at every stage, and an upsert of an unregistered one fails the workflow task until an
// operator registers it (docs/deployment.md#search-attributes). The worker starts anyway: registering them is
// the fix, and the runs resume then.
func checkSearchAttributes(ctx context.Context, p Parts, namespace string) {
	if namespace == "" {
		namespace = "default"
	}
	missing, err := setup.MissingSearchAttributes(ctx, p.Client, namespace, workflows.SearchAttributeTypes())
	switch {
	case err != nil:
		p.Log.Warn("could not check the Temporal search attributes", "namespace", namespace, "err", err)
	case len(missing) > 0:
		p.Log.Error("Temporal namespace lacks search attributes the workflows set: issuances stall until they are "+
			"registered (docs/deployment.md#search-attributes)", "namespace", namespace, "missing", strings.Join(missing, ","))
	}
}
