// Package webui serves the Temporal Web UI embedded in the pinned ui-server module (no asset download) against a
// Temporal frontend: the embedded server's (temporal/devserver) and the local cluster's (badged-cluster serve-ui).
//
// It imports nothing of the module.
package webui

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	"github.com/temporalio/ui-server/v2/server/server_options"
)

// Start serves the UI on host:port, talking gRPC to frontendAddr, and returns once it answers HTTP. ui-server
// exits the process on a bind error: callers check the port first. errs receives the error Start's serving
// goroutine ends with.
func Start(ctx context.Context, host string, port int, frontendAddr, namespace string, errs func(error)) (*uiserver.Server, error) {
	ui := uiserver.NewServer(server_options.WithConfigProvider(&uiconfig.Config{
		Host:                host,
		Port:                port,
		TemporalGRPCAddress: frontendAddr,
		EnableUI:            true,
		DefaultNamespace:    namespace,
		// Plain HTTP on loopback: the CSRF cookie cannot be Secure.
		CORS:     uiconfig.CORS{CookieInsecure: true},
		HideLogs: true,
		// The UI would otherwise fetch news from the internet.
		DisableNewsFetch: true,
	}))
	go func() {
		if err := ui.Start(); err != nil {
			errs(fmt.Errorf("ui server: %w", err))
		}
	}()
	if err := waitHTTP(ctx, "http://"+net.JoinHostPort(host, strconv.Itoa(port))+"/healthz"); err != nil {
		ui.Stop()
		return nil, fmt.Errorf("ui: %w", err)
	}
	return ui, nil
}

// waitHTTP polls url until it answers 200 or ctx ends (10 s at most).
func waitHTTP(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %w", url, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
