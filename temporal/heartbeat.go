package temporal

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
)

// heartbeats makes every regular activity scheduled with a HeartbeatTimeout heartbeat on its own while it runs.
// The heartbeat says "this worker is alive", not "this step progresses" (StartToCloseTimeout bounds a step): when
// a worker dies (SIGKILL, OOM, a lost machine), the server retries its anchor and notify steps on another worker
// after the heartbeat timeout, seconds, instead of after the StartToCloseTimeout, minutes.
type heartbeats struct {
	interceptor.WorkerInterceptorBase
}

func (heartbeats) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &heartbeatActivity{}
	i.Next = next
	return i
}

type heartbeatActivity struct {
	interceptor.ActivityInboundInterceptorBase
}

func (a *heartbeatActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	info := activity.GetInfo(ctx)
	if info.IsLocalActivity || info.HeartbeatTimeout <= 0 {
		return a.Next.ExecuteActivity(ctx, in)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		// A third of the timeout leaves two beats of slack; the SDK batches beats to the server anyway.
		t := time.NewTicker(info.HeartbeatTimeout / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return a.Next.ExecuteActivity(ctx, in)
}
