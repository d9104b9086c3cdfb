package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// stepOptions run every pipeline step. Failures of our own code carry their assertion errorCode and the activity
// decides retry and delay from the policy file (NextRetryDelay, non-retryable past the class's attempts); this
// policy only governs what the code cannot classify, such as a worker crash or a timeout. ScheduleToClose bounds
// a step, so no recipient waits forever. The worker heartbeats every running step (temporal/heartbeat.go), so the
// step of a worker that died is retried elsewhere after HeartbeatTimeout, not StartToCloseTimeout.
var stepOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    2 * time.Minute,
	HeartbeatTimeout:       15 * time.Second,
	ScheduleToCloseTimeout: 30 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
	},
}

// dbOptions run bookkeeping steps that touch only Postgres.
var dbOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    30 * time.Second,
	},
}

// Short steps that only touch Postgres, the object store or the CPU (check, sign, bake, publish, bookkeeping) run
// as local activities: the worker runs them inside the workflow task and records one marker, instead of a round
// trip through the server's task queue for each. On the embedded server that is most of the per-recipient cost.
// Anchor and notify wait on outside systems for seconds and stay regular activities, with their own task-queue
// retries and visibility as pending activities.

// localStepOptions run the short pipeline steps; retries follow the same rules as stepOptions.
var localStepOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout:    time.Minute,
	ScheduleToCloseTimeout: 30 * time.Minute,
	RetryPolicy:            stepOptions.RetryPolicy,
}

// localDBOptions run bookkeeping that touches only Postgres.
var localDBOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy:         dbOptions.RetryPolicy,
}
