package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// ExpireScheduleID is the Temporal Schedule that runs ExpireAssertions; the worker creates it at start.
const ExpireScheduleID = "badged-expire-assertions"

// ExpireInterval is how often the schedule runs.
const ExpireInterval = 10 * time.Minute

// ExpireAssertions is the durable expiry job: a Temporal Schedule starts it every ExpireInterval.
func ExpireAssertions(ctx workflow.Context) (int64, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy:         dbOptions.RetryPolicy,
	})
	var n int64
	err := workflow.ExecuteActivity(ctx, a.ExpireAssertions).Get(ctx, &n)
	return n, err
}
