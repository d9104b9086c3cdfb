package metrics_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/temporal/devserver"
)

// TestTemporalHandler_RealSDK runs one workflow on the in-process Temporal server with the handler installed and
// checks that the SDK's own metrics reach the registry, well-formed and with help text.
func TestTemporalHandler_RealSDK(t *testing.T) {
	ctx := context.Background()
	srv, err := devserver.Start(ctx, devserver.Options{FrontendAddr: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError}))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	m := metrics.New()
	c, err := client.Dial(client.Options{HostPort: srv.FrontendAddr(), MetricsHandler: m.TemporalHandler()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	w := worker.New(c, "metrics-check", worker.Options{})
	w.RegisterWorkflowWithOptions(func(workflow.Context) error { return nil }, workflow.RegisterOptions{Name: "noop"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "metrics-check"}, "noop")
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))

	// The worker counts the completion after it reports it to the server, so Get can return first: wait for it.
	var text string
	require.Eventually(t, func() bool {
		text = scrape(t, m)
		return strings.Contains(text, `temporal_workflow_completed{`)
	}, 10*time.Second, 20*time.Millisecond, "temporal_workflow_completed never exported")
	require.Contains(t, text, `workflow_type="noop"`)
	require.Contains(t, text, `# TYPE temporal_workflow_endtoend_latency_seconds histogram`)
	requireHelpOnEveryMetric(t, text)
}
