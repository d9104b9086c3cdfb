package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/badged/badged/temporal/webui"
)

// serveUI is the cluster's console: the Temporal Web UI of the pinned ui-server module (the one `badged dev`
// embeds), against the cluster's frontend, so the links badged prints (TEMPORAL_UI_URL) open the cluster's own UI.
func serveUI(ctx context.Context, fs *flag.FlagSet, args []string, stdout io.Writer) error {
	addr := fs.String("addr", "127.0.0.1:18233", "listen address")
	frontend := fs.String("frontend", "127.0.0.1:17233", "Temporal frontend (gRPC)")
	namespace := fs.String("namespace", "default", "namespace the UI opens")
	if err := fs.Parse(args); err != nil {
		return err
	}
	host, portText, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("serve-ui --addr: %w", err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return fmt.Errorf("serve-ui --addr: %w", err)
	}
	// ui-server exits the process on a bind error; say which address first.
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve-ui: %w", err)
	}
	l.Close()
	failed := make(chan error, 1)
	ui, err := webui.Start(ctx, host, port, *frontend, *namespace, func(err error) { failed <- err })
	if err != nil {
		return err
	}
	defer ui.Stop()
	fmt.Fprintf(stdout, "temporal ui on http://%s (frontend %s, namespace %s)\n", *addr, *frontend, *namespace)
	select {
	case <-ctx.Done():
		return nil
	case err := <-failed:
		return err
	}
}
