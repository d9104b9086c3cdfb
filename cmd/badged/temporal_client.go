package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/badged/badged/cmd/badged/internal/config"
)

// dialTemporal connects to the Temporal frontend at addr with the configured namespace, TLS and credentials: the
// one place every command (serve, worker, dev, admin) dials from.
func dialTemporal(ctx context.Context, cfg config.Config, addr string, log *slog.Logger, metrics client.MetricsHandler) (client.Client, error) {
	opts, err := temporalOptions(cfg, addr, log)
	if err != nil {
		return nil, err
	}
	opts.MetricsHandler = metrics
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("dial temporal %s: %w", addr, err)
	}
	return c, nil
}

// temporalOptions builds the client options; the TLS files are read here, so a bad path fails at start.
func temporalOptions(cfg config.Config, addr string, log *slog.Logger) (client.Options, error) {
	opts := client.Options{HostPort: addr, Namespace: cfg.TemporalNamespace,
		Logger: sdklog.NewStructuredLogger(log.With("component", "temporal"))}
	if !cfg.TemporalTLS() {
		return opts, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: cfg.TemporalTLSServerName}
	if cfg.TemporalTLSCAFile != "" {
		pem, err := os.ReadFile(cfg.TemporalTLSCAFile)
		if err != nil {
			return opts, fmt.Errorf("TEMPORAL_TLS_CA_FILE: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return opts, errors.New("TEMPORAL_TLS_CA_FILE: no PEM certificate in the file")
		}
	}
	if cfg.TemporalTLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TemporalTLSCertFile, cfg.TemporalTLSKeyFile)
		if err != nil {
			return opts, fmt.Errorf("TEMPORAL_TLS_CERT_FILE/TEMPORAL_TLS_KEY_FILE: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	opts.ConnectionOptions.TLS = tc
	if cfg.TemporalAPIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(cfg.TemporalAPIKey)
	}
	return opts, nil
}
