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
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/media"
)

// runDev is the embedded default: it creates and migrates the database, then serves.
func runDev(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	if err := runMigrate(ctx, cfg, log, true); err != nil {
		return err
	}
	return runServe(ctx, cfg, log)
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

// runServe serves the API until ctx ends, then drains in-flight requests for up to SHUTDOWN_TIMEOUT.
func runServe(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	log.Info("starting", "config", cfg)
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	store, err := blob.NewLocal(cfg.BlobDir)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Addr: cfg.HTTPAddr,
		Handler: api.NewHandler(api.Deps{DB: d, Blob: store, Log: log, Location: cfg.TimeZone,
			PublicBaseURL: cfg.PublicBaseURL, MediaLimits: media.Limits{MaxBytes: cfg.MediaMaxBytes, MaxPixels: cfg.MediaMaxPixels}}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.HTTPAddr, err)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info("http api listening", "addr", ln.Addr().String(), "public_base_url", cfg.PublicBaseURL)

	select {
	case err := <-serveErr:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}
