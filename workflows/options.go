package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// stepOptions run every pipeline step. Failures of our own code carry their assertion errorCode and the activity
// decides retry and delay from the policy file (NextRetryDelay, non-retryable past the class's attempts); this
// policy only governs what the code cannot classify, such as a worker crash or a timeout. ScheduleToClose bounds
// a step, so no recipient waits forever.
var stepOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    2 * time.Minute,
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
