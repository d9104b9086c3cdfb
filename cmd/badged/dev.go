//go:build !production

package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/internal/chain/devchain"
	"github.com/badged/badged/temporal/devserver"
	"github.com/badged/badged/workflows"
)

// startEmbedded starts what the embedded default (`badged dev`) needs and points cfg at it: the database (created
// and migrated), the dev chain and the Temporal server with its UI, unless cfg names real ones. The returned stop
// shuts them down in reverse order. Production builds (-tags production) leave this file, and with it the Temporal
// server and the dev chain, out of the binary (dev_production.go).
func startEmbedded(ctx context.Context, cfg *config.Config, log *slog.Logger) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	if err := runMigrate(ctx, *cfg, log, true); err != nil {
		return nil, err
	}
	if cfg.ChainRPCURL == "" {
		c, err := devchain.Start(devchain.Config{Addr: cfg.DevChainAddr, DataDir: cfg.DataDir + "/chain",
			Seed: "badged-dev", BlockInterval: time.Second})
		if err != nil {
			return nil, fmt.Errorf("dev chain: %w", err)
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
			return nil, fmt.Errorf("embedded temporal: %w", err)
		}
		stops = append(stops, func() { _ = srv.Stop() })
		cfg.TemporalAddress = srv.FrontendAddr()
		log.Info("embedded temporal running", "frontend", srv.FrontendAddr(), "ui", cfg.TemporalUIURL)
	}
	return stop, nil
}

func uiAddr(cfg config.Config) string {
	if cfg.TemporalUIAddr == "off" {
		return ""
	}
	return cfg.TemporalUIAddr
}
