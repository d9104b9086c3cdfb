//go:build !production

package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/temporal/devserver"
	"github.com/badged/badged/workflows"
)

// startEmbedded starts what the embedded default (`badged dev`) needs and points cfg at it: the database (created
// and migrated), the dev chain and the Temporal server with its UI, unless cfg names real ones. The returned stop
// shuts them down in reverse order. A part that cannot start stops those already started and is returned as a
// *startError naming it. Production builds (-tags production) leave this file, and with it the Temporal server
// and the dev chain, out of the binary (dev_production.go).
func startEmbedded(ctx context.Context, cfg *config.Config, log *slog.Logger) (func(), error) {
	var stops []func()
	stop := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	fail := func(err error) (func(), error) {
		stop()
		return nil, err
	}
	if err := runMigrate(ctx, *cfg, log, true); err != nil {
		return fail(&startError{Part: "database", Setting: "DATABASE_URL", Err: err})
	}
	if cfg.ChainRPCURL == "" {
		c, err := devchain.Start(devchain.Config{Addr: cfg.DevChainAddr, DataDir: cfg.DataDir + "/chain",
			Seed: "badged-dev", BlockInterval: time.Second})
		if err != nil {
			return fail(&startError{Part: "chain", Setting: "DEV_CHAIN_ADDR", Err: err})
		}
		stops = append(stops, func() { c.Close() })
		cfg.ChainRPCURL, cfg.ChainPrivateKey = c.URL(), c.PrivateKeyHex()
		if cfg.ChainID == 0 {
			cfg.ChainID = devchain.ChainID // known: the controller documents name the sender without asking
		}
		r := c.Replayed() // what the chain's journal gave back after a restart (or a kill -9)
		log.Info("dev chain running", "rpc", c.URL(), "sender", c.Address().Hex(), "replayed_blocks", r.Blocks,
			"replayed_pool", r.Pooled, "replay_mismatches", r.Differs)
	}
	if cfg.TemporalAddress == "" {
		srv, err := devserver.Start(ctx, devserver.Options{Dir: cfg.DataDir + "/temporal", FrontendAddr: cfg.TemporalDevAddr,
			Namespace: cfg.TemporalNamespace, UIAddr: uiAddr(*cfg), SearchAttributes: workflows.SearchAttributeTypes(), Logger: log})
		if err != nil {
			return fail(temporalStartError(err))
		}
		stops = append(stops, func() { _ = srv.Stop() })
		cfg.TemporalAddress = srv.FrontendAddr()
		log.Info("embedded temporal running", "frontend", srv.FrontendAddr(), "ui", cfg.TemporalUIURL)
	}
	return stop, nil
}

// temporalStartError names the part of the embedded Temporal server that did not start: the frontend (part
// "temporal", at TEMPORAL_DEV_ADDR), the UI (TEMPORAL_UI_ADDR), or one of the services on the free ports it picks.
func temporalStartError(err error) error {
	var le *devserver.ListenError
	if !errors.As(err, &le) {
		return &startError{Part: "temporal", Err: err}
	}
	switch le.Service {
	case "frontend":
		return &startError{Part: "temporal", Setting: "TEMPORAL_DEV_ADDR", Err: le.Err}
	case "ui":
		return &startError{Part: "temporal ui", Setting: "TEMPORAL_UI_ADDR", Err: le.Err}
	}
	return &startError{Part: "temporal " + le.Service, Err: le.Err}
}

func uiAddr(cfg config.Config) string {
	if cfg.TemporalUIAddr == "off" {
		return ""
	}
	return cfg.TemporalUIAddr
}
