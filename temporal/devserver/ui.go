package devserver

import (
	"context"

	uiserver "github.com/temporalio/ui-server/v2/server"

	"github.com/badged/badged/temporal/webui"
)

// startUI serves the Web UI (temporal/webui) on host:port, talking gRPC to frontendAddr. It returns once the UI
// answers HTTP.
func startUI(ctx context.Context, host string, port int, frontendAddr, namespace string, errs func(error)) (*uiserver.Server, error) {
	// ui-server exits the process on a bind error, so probe the port first. (A process that takes the port between
	// this probe and ui-server's bind still gets it to exit: ui-server takes no listener of ours.)
	if err := checkFree("ui", host, port); err != nil {
		return nil, err
	}
	return webui.Start(ctx, host, port, frontendAddr, namespace, errs)
}
