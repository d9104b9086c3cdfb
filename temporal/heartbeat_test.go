package temporal

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/temporal/devserver"
)

// slowStep stands for an anchor or notify step: it runs longer than the heartbeat timeout and never heartbeats.
func slowStep(ctx context.Context) error {
	select {
	case <-time.After(2500 * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func slowWorkflow(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		HeartbeatTimeout: time.Second, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	return workflow.ExecuteActivity(ctx, slowStep).Get(ctx, nil)
}

// With the interceptor, a step that runs past its heartbeat timeout on a live worker completes; without it, the
// server would declare the live worker dead.
func TestHeartbeats_KeepLiveStepsAlive(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Options{FrontendAddr: "127.0.0.1:0"})
	require.NoError(t, err)
	defer srv.Stop()
	c, err := client.DialContext(ctx, client.Options{HostPort: srv.FrontendAddr(), Namespace: srv.Namespace()})
	require.NoError(t, err)
	defer c.Close()

	run := func(t *testing.T, queue string, interceptors []interceptor.WorkerInterceptor) error {
		w := worker.New(c, queue, worker.Options{Interceptors: interceptors})
		w.RegisterWorkflow(slowWorkflow)
		w.RegisterActivity(slowStep)
		require.NoError(t, w.Start())
		defer w.Stop()
		r, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue}, slowWorkflow)
		require.NoError(t, err)
		return r.Get(ctx, nil)
	}
	t.Run("with heartbeats", func(t *testing.T) {
		require.NoError(t, run(t, "with", []interceptor.WorkerInterceptor{&heartbeats{}}))
	})
	t.Run("without", func(t *testing.T) {
		err := run(t, "without", nil)
		var timeout *temporal.TimeoutError
		require.True(t, errors.As(err, &timeout), "want a heartbeat timeout, got %v", err)
	})
}
