package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/api"
	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/media"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/stats"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/workflows"
)

// roles says which parts a process runs.
type roles struct {
	api, worker, dev bool
}

// runMigrate applies migrations; create also creates the database when it is missing.
func runMigrate(ctx context.Context, cfg config.Config, log *slog.Logger, create bool) error {
	if create {
		if err := db.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
			return err
		}
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	applied, err := db.Migrate(ctx, d)
	if err != nil {
		return err
	}
	log.Info("database migrated", "applied", applied)
	return nil
}

// run starts the parts of r and blocks until ctx ends, then stops them in reverse order. Under dev it first
// starts what the embedded default needs: the database, the dev chain and the Temporal server with its UI.
func runParts(ctx context.Context, cfg config.Config, log *slog.Logger, r roles) error {
	log.Info("starting", "api", r.api, "worker", r.worker, "dev", r.dev, "config", cfg)
	if r.dev {
		stop, err := startEmbedded(ctx, &cfg, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	if cfg.TemporalAddress == "" {
		return errors.New("TEMPORAL_ADDRESS is required (or use `badged dev` for the embedded server)")
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	store, err := openBlob(ctx, cfg)
	if err != nil {
		return err
	}
	ring, err := openKeyring(cfg, r.dev)
	if err != nil {
		return err
	}
	iss := issuer.New(d, ring, cfg.PublicBaseURL)
	iss.Anchoring = anchorAccount(ctx, cfg, log)
	// One registry per process, served on METRICS_ADDR alone (never on the API's port) by every command.
	m := metrics.New()
	m.Registry.MustRegister(metrics.NewStuckCollector(d, cfg.StuckAfter, log))
	tc, err := dialTemporal(ctx, cfg, cfg.TemporalAddress, log, m.TemporalHandler())
	if err != nil {
		return err
	}
	defer tc.Close()

	errc := make(chan error, 2)
	if r.worker {
		// In a process that also serves the API, the worker (its steps and its issuer) gets a pool of its own:
		// hundreds of concurrent steps would otherwise hold the API's connections (BenchmarkSteadyLoad at 200
		// requests/s: p50 57 ms and p99 1.5 s on one shared pool, 6–13 ms and 64 ms on two).
		wd, wiss := d, iss
		if r.api {
			if wd, err = db.Open(ctx, cfg.DatabaseURL); err != nil {
				return err
			}
			defer wd.Close()
			wiss = issuer.New(wd, ring, cfg.PublicBaseURL)
			wiss.Anchoring = iss.Anchoring
		}
		acts, err := newActivities(ctx, cfg, wd, store, wiss, log)
		if err != nil {
			return err
		}
		acts.Metrics = m
		defer acts.Notifier.Close() //nolint:errcheck // after the worker stops (deferred below): ends idle SMTP sessions
		if an, ok := acts.Anchor.(*chain.Anchorer); ok {
			m.Registry.MustRegister(metrics.NewChainRepairCollector(func() metrics.ChainRepairCounts {
				r := an.Repairs()
				return metrics.ChainRepairCounts{Resent: r.Resent, Filled: r.Filled, Failed: r.Failed, Behind: r.Behind}
			}))
		}
		w := temporal.NewWorker(tc, acts, temporal.WorkerOptions{MaxConcurrentActivities: cfg.WorkerActivities,
			StopTimeout: cfg.ShutdownTimeout})
		if err := w.Start(); err != nil {
			return fmt.Errorf("start worker: %w", err)
		}
		defer w.Stop() // waits for running activities to finish or time out
		if err := temporal.EnsureExpirySchedule(ctx, tc); err != nil {
			return err
		}
		if err := temporal.EnsureReminderWorkflow(ctx, tc); err != nil {
			return err
		}
		stopReconciler := startReconciler(ctx, temporal.Reconciler{DB: wd, Starter: temporal.Starter{Client: tc}, Log: log,
			Grace: cfg.OrphanAfter})
		defer stopReconciler()
		stopDispatcher := startBackground(ctx, temporal.WebhookDispatcher{DB: wd, Starter: temporal.Starter{Client: tc}, Log: log,
			Interval: cfg.WebhookDispatchInterval, Retention: cfg.WebhookRetention}.Run)
		defer stopDispatcher()
		// Anchors wallet copies (claimed inline by the API) and purges expired wallet codes, tokens and nonces.
		stopWalletSweep := startBackground(ctx, activities.WalletSweep{DB: wd, Anchor: acts.Anchor, Log: log, Metrics: m}.Run)
		defer stopWalletSweep()
		log.Info("worker running", "task_queue", workflows.TaskQueue)
	}
	msrv, err := serveMetrics(cfg.MetricsAddr, m, errc)
	if err != nil {
		return err
	}
	log.Info("metrics listening", "addr", msrv.Addr)
	defer shutdownHTTP(msrv, cfg.ShutdownTimeout, log)
	if r.api {
		// The badge event counters: flushed every STATS_FLUSH_INTERVAL and once more after the HTTP server has
		// drained (this defer runs after shutdownHTTP below), so a graceful shutdown loses no counted event.
		rec := stats.NewRecorder(d, stats.Options{Interval: cfg.StatsFlushInterval, Log: log, Metrics: m})
		stopStats := startBackground(context.WithoutCancel(ctx), rec.Run) // not ctx: the signal must not end it before the drain
		defer stopStats()
		srv, err := newHTTPServer(ctx, cfg, d, store, iss, tc, m, rec, log)
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", cfg.HTTPAddr)
		if err != nil {
			return fmt.Errorf("listen %s: %w", cfg.HTTPAddr, err)
		}
		go func() { errc <- srv.Serve(api.GuardListener(ln, cfg.TimeZone)) }()
		log.Info("http api listening", "addr", ln.Addr().String(), "public_base_url", cfg.PublicBaseURL)
		defer shutdownHTTP(srv, cfg.ShutdownTimeout, log)
	}
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
		log.Info("shutting down", "timeout", cfg.ShutdownTimeout)
		return nil
	}
}

// anchorAccount is the account the issuers' controller documents name as the sender of anchor transactions:
// the address of CHAIN_PRIVATE_KEY on CHAIN_ID (asked of the node when CHAIN_ID is 0). Nil without a chain, or
// when the chain id cannot be learned at start (logged: set CHAIN_ID to need no node).
func anchorAccount(ctx context.Context, cfg config.Config, log *slog.Logger) *issuer.AnchorAccount {
	if cfg.ChainRPCURL == "" || cfg.ChainPrivateKey == "" {
		return nil
	}
	addr, err := chain.AddressOf(cfg.ChainPrivateKey)
	if err != nil {
		log.Warn("controller documents will not name the anchoring account", "err", err)
		return nil
	}
	id := cfg.ChainID
	if id == 0 {
		v, err := chain.NewVerifier(cfg.ChainRPCURL)
		if err == nil {
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			id, err = v.ChainID(ctx)
			cancel()
			v.Close()
		}
		if err != nil {
			log.Warn("controller documents will not name the anchoring account: set CHAIN_ID", "err", err)
			return nil
		}
	}
	return &issuer.AnchorAccount{ChainID: id, Address: addr}
}

// startReconciler runs r until the returned function is called, which waits for its pass to end.
func startReconciler(ctx context.Context, r temporal.Reconciler) (stop func()) {
	return startBackground(ctx, r.Run)
}

// startBackground runs loop until the returned function is called, which waits for loop to return.
func startBackground(ctx context.Context, loop func(context.Context)) (stop func()) {
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

func newHTTPServer(ctx context.Context, cfg config.Config, d *db.DB, store blob.Store, iss *issuer.Service, tc client.Client,
	m *metrics.Metrics, rec *stats.Recorder, log *slog.Logger) (*http.Server, error) {
	deps := api.Deps{DB: d, Blob: store, Log: log, Location: cfg.TimeZone, PublicBaseURL: cfg.PublicBaseURL,
		MediaLimits: media.Limits{MaxBytes: cfg.MediaMaxBytes, MaxPixels: cfg.MediaMaxPixels, DecodeBudget: cfg.MediaDecodeMem},
		Issuances:   temporal.Starter{Client: tc}, Issuer: iss, Metrics: m,
		Webhooks: temporal.Starter{Client: tc}, WebhookURLs: webhookURLs(cfg), Stats: rec}
	deps.RateLimit = api.RateLimit{PerSecond: float64(cfg.RateLimitRPS), Burst: cfg.RateLimitBurst}
	deps.KeyCacheTTL = cfg.KeyCacheTTL
	if cfg.ChainRPCURL != "" {
		v, err := chain.NewVerifier(cfg.ChainRPCURL)
		if err != nil {
			return nil, fmt.Errorf("chain verifier: %w", err)
		}
		deps.Chain = v
	}
	return &http.Server{
		Addr:              cfg.HTTPAddr,
		Handler:           api.NewHandler(deps),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    api.ServerMaxHeaderBytes, // the API answers 431 itself at 64 KiB, with the contract's body
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}, nil
}

// serveMetrics serves /metrics alone on addr (METRICS_ADDR); a serve error is sent on errc.
func serveMetrics(addr string, m *metrics.Metrics, errc chan<- error) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s (METRICS_ADDR): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Addr: ln.Addr().String(), Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { errc <- srv.Serve(ln) }()
	return srv, nil
}

// shutdownHTTP stops accepting requests and waits up to timeout for in-flight ones.
func shutdownHTTP(srv *http.Server, timeout time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("http shutdown", "err", err)
	}
}
