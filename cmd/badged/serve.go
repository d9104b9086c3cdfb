package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/badged/badged/api"
	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/media"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/internal/stats"
	"github.com/badged/badged/wire"
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

// runParts starts the parts of r and blocks until ctx ends, then stops them in reverse order. Under dev it first
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
		return startFailed("database", "DATABASE_URL", err)
	}
	defer d.Close()
	// One registry per process, served on METRICS_ADDR alone (never on the API's port) by every command.
	m := metrics.New()
	m.Registry.MustRegister(metrics.NewStuckCollector(d, cfg.StuckAfter, log))
	p, err := openParts(ctx, cfg, r.dev, d, m, log)
	if err != nil {
		return err
	}
	defer p.Client.Close()

	errc := make(chan error, 2)
	if r.worker {
		wd, closeWD, err := p.WorkerDB(ctx, cfg.DatabaseURL, r.api)
		if err != nil {
			return startFailed("database (the worker's pool)", "DATABASE_URL", err)
		}
		defer closeWD()
		w, err := newWorker(cfg, wd)
		if err != nil {
			return startFailed("worker", "", err)
		}
		running, err := wire.StartWorker(ctx, p, w)
		if err != nil {
			return startFailed("worker", "", err)
		}
		defer running.Stop()
	}
	msrv, err := serveMetrics(cfg.MetricsAddr, m, errc)
	if err != nil {
		return startFailed("metrics", "METRICS_ADDR", err)
	}
	log.Info("metrics listening", "addr", msrv.Addr)
	defer shutdownHTTP(msrv, cfg.ShutdownTimeout, log)
	if r.api {
		// The badge event counters: flushed every STATS_FLUSH_INTERVAL and once more after the HTTP server has
		// drained (this defer runs after shutdownHTTP below), so a graceful shutdown loses no counted event.
		rec := stats.NewRecorder(d, stats.Options{Interval: cfg.StatsFlushInterval, Log: log, Metrics: m})
		stopStats := wire.Background(context.WithoutCancel(ctx), rec.Run) // not ctx: the signal must not end it before the drain
		defer stopStats()
		// The sign-in mails of the earner's pages and the console leave from this process (internal/signin): the same senders as
		// the worker's notifications (SMTP, or the outbox under `make run`), a bounded queue drained here.
		notifier, _, _, err := newSenders(cfg)
		if err != nil {
			return startFailed("sign-in mail", "SMTP_HOST", err)
		}
		defer notifier.Close()
		letters, ok := notifier.Email.(notify.LetterSender)
		if !ok {
			return startFailed("sign-in mail", "SMTP_HOST", fmt.Errorf("the mail sender %T cannot send letters", notifier.Email))
		}
		mailer := signin.NewMailer(letters, log, m)
		stopMailer := wire.Background(context.WithoutCancel(ctx), mailer.Run) // stopped after the HTTP server drained
		defer stopMailer()
		srv, closeAPI, err := newHTTPServer(ctx, cfg, p, rec, mailer)
		if err != nil {
			return startFailed("api", "", err)
		}
		defer closeAPI()
		ln, err := net.Listen("tcp", cfg.HTTPAddr)
		if err != nil {
			return startFailed("api", "HTTP_ADDR", err)
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

// newHTTPServer returns the API's server on p; closeAPI releases its chain verifier after the server has stopped.
func newHTTPServer(ctx context.Context, cfg config.Config, p wire.Parts, rec *stats.Recorder, mailer *signin.Mailer) (_ *http.Server, closeAPI func(), err error) {
	deps, closeAPI, err := p.API()
	if err != nil {
		return nil, nil, err
	}
	deps.MediaLimits = media.Limits{MaxBytes: cfg.MediaMaxBytes, MaxPixels: cfg.MediaMaxPixels, DecodeBudget: cfg.MediaDecodeMem}
	deps.RateLimit = api.RateLimit{PerSecond: float64(cfg.RateLimitRPS), Burst: cfg.RateLimitBurst}
	deps.KeyCacheTTL = cfg.KeyCacheTTL
	if cfg.KeyCacheTTL > 0 { // a key revoked anywhere ends here at once, not after the cache's TTL
		deps.KeyRevocations = &apikey.Revocations{}
		stopListening := wire.Background(context.WithoutCancel(ctx), func(ctx context.Context) {
			deps.KeyRevocations.Listen(ctx, deps.DB.Pool, deps.Log)
		})
		closeDeps := closeAPI
		closeAPI = func() { stopListening(); closeDeps() }
	}
	deps.Stats = rec
	if err := withConsoleRedrive(cfg, &deps, p.Client); err != nil {
		closeAPI()
		return nil, nil, err
	}
	if err := withSignIns(cfg, &deps, mailer); err != nil {
		closeAPI()
		return nil, nil, err
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
	}, closeAPI, nil
}

// serveMetrics serves /metrics alone on addr (METRICS_ADDR); a serve error is sent on errc.
func serveMetrics(addr string, m *metrics.Metrics, errc chan<- error) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
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
