package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/workflows"
)

// WorkerOptions tune the issuance worker.
type WorkerOptions struct {
	// MaxConcurrentActivities bounds regular activities (anchor and notify, one per chunk of recipients); 0 = 200,
	// far more chunks than a full fan-out has in flight, so no step waits for a slot.
	MaxConcurrentActivities int
	// StopTimeout is how long Stop lets running activities finish before cancelling them (SHUTDOWN_TIMEOUT). The
	// SDK's default is none: a notify step cancelled between the SMTP server's acceptance and its record would
	// send its message again on retry.
	StopTimeout time.Duration
}

// NewWorker returns a worker on workflows.TaskQueue with every workflow and activity registered, once.
func NewWorker(c client.Client, acts *activities.Activities, o WorkerOptions) worker.Worker {
	if o.MaxConcurrentActivities <= 0 {
		o.MaxConcurrentActivities = 200
	}
	w := worker.New(c, workflows.TaskQueue, worker.Options{
		MaxConcurrentActivityExecutionSize: o.MaxConcurrentActivities,
		WorkerStopTimeout:                  o.StopTimeout,
		Interceptors:                       []interceptor.WorkerInterceptor{&heartbeats{}},
	})
	RegisterWorkflows(w)
	w.RegisterActivity(acts)
	return w
}

// Workflow is a workflow type as the worker registers it: Name is what every start command and every recorded
// history carries, fixed here so that moving the function to another package changes nothing.
type Workflow struct {
	Name string
	Func any
}

// Workflows lists every workflow type the worker runs, by registered name. The names are those the SDK derives
// from the function names (clients start workflows by function reference; TestWorkflowNamesMatchFunctions holds
// them equal). The replay test (replay_test.go) registers the same list, so the recorded histories are checked
// against exactly what a worker runs.
func Workflows() []Workflow {
	return []Workflow{
		{"IssueBadge", workflows.IssueBadge},
		{"IssueBatch", workflows.IssueBatch},
		{"RedriveIssuance", workflows.RedriveIssuance},
		{"DeliverWebhook", workflows.DeliverWebhook},
		{"ExpireAssertions", workflows.ExpireAssertions},
		{"RemindExpiring", workflows.RemindExpiring},
	}
}

// WorkflowRegistry is what registers workflows: a worker.Worker or a worker.WorkflowReplayer.
type WorkflowRegistry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}

// RegisterWorkflows registers every workflow of Workflows on r under its name.
func RegisterWorkflows(r WorkflowRegistry) {
	for _, wf := range Workflows() {
		r.RegisterWorkflowWithOptions(wf.Func, workflow.RegisterOptions{Name: wf.Name})
	}
}

// EnsureExpirySchedule creates the Schedule of the expiry job; it already existing is fine.
func EnsureExpirySchedule(ctx context.Context, c client.Client) error {
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:      workflows.ExpireScheduleID,
		Spec:    client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: workflows.ExpireInterval}}},
		Overlap: enums.SCHEDULE_OVERLAP_POLICY_SKIP, // one run at a time
		Action: &client.ScheduleWorkflowAction{
			ID:            workflows.ExpireScheduleID,
			Workflow:      workflows.ExpireAssertions,
			TaskQueue:     workflows.TaskQueue,
			StaticSummary: expirySummary,
			StaticDetails: expiryDetails,
		},
	})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create expiry schedule: %w", err)
	}
	return nil
}

// EnsureReminderWorkflow starts the expiry reminder loop (workflows.RemindExpiring) unless it runs; one that ended
// (terminated, failed) is started again.
func EnsureReminderWorkflow(ctx context.Context, c client.Client) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.ReminderWorkflowID,
		TaskQueue:                workflows.TaskQueue,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:            reminderSummary,
		StaticDetails:            reminderDetails,
	}, workflows.RemindExpiring, workflows.RemindInput{})
	if err != nil {
		return fmt.Errorf("start expiry reminders: %w", err)
	}
	return nil
}
