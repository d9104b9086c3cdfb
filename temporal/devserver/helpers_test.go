package devserver

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

const testTaskQueue = "devserver-test"

// badgedAttributes mirrors what `badged dev` registers.
var badgedAttributes = map[string]enums.IndexedValueType{
	"IssuanceId":     enums.INDEXED_VALUE_TYPE_KEYWORD,
	"OrgId":          enums.INDEXED_VALUE_TYPE_KEYWORD,
	"BadgeId":        enums.INDEXED_VALUE_TYPE_KEYWORD,
	"ApiVersion":     enums.INDEXED_VALUE_TYPE_KEYWORD,
	"RecipientCount": enums.INDEXED_VALUE_TYPE_INT,
}

func testLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// startServer starts a server with the badged attributes and stops it at
// the end of the test.
func startServer(tb testing.TB, o Options) *Server {
	tb.Helper()
	if o.SearchAttributes == nil {
		o.SearchAttributes = badgedAttributes
	}
	if o.Logger == nil {
		o.Logger = testLogger()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, o)
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, s.Stop()) })
	return s
}

func dial(tb testing.TB, s *Server) client.Client {
	tb.Helper()
	c, err := client.Dial(client.Options{
		HostPort:  s.FrontendAddr(),
		Namespace: s.Namespace(),
		Logger:    sdklog.NewStructuredLogger(testLogger()),
	})
	require.NoError(tb, err)
	tb.Cleanup(c.Close)
	return c
}

// startWorker runs a real worker with greetWorkflow and greet registered.
func startWorker(tb testing.TB, c client.Client) {
	tb.Helper()
	w := worker.New(c, testTaskQueue, worker.Options{})
	w.RegisterWorkflow(greetWorkflow)
	w.RegisterActivity(greet)
	require.NoError(tb, w.Start())
	tb.Cleanup(w.Stop)
}

// greetWorkflow runs one regular (not local) activity.
func greetWorkflow(ctx workflow.Context, name string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var out string
	err := workflow.ExecuteActivity(ctx, greet, name).Get(ctx, &out)
	return out, err
}

func greet(_ context.Context, name string) (string, error) {
	return "hello " + name, nil
}
