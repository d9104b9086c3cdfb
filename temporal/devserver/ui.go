package devserver

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

// startUI serves the Web UI embedded in the ui-server module (no asset
// download) on host:port, talking gRPC to frontendAddr. It returns once the
// UI answers HTTP.
func startUI(ctx context.Context, host string, port int, frontendAddr, namespace string, errs func(error)) (*uiserver.Server, error) {
	// ui-server exits the process on a bind error, so probe the port first. (A process that takes the port between
	// this probe and ui-server's bind still gets it to exit: ui-server takes no listener of ours.)
	if err := checkFree("ui", host, port); err != nil {
		return nil, err
	}
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
