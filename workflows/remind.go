package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/badged/badged/activities"
)

// ReminderWorkflowID is the one run of RemindExpiring; the worker starts it at start when it is not running.
const ReminderWorkflowID = "badged-expiry-reminders"

// ReminderInterval is the time between two rounds of the reminder sweep: a reminder leaves at most this late.
const ReminderInterval = 5 * time.Minute

// ReminderProgressQuery is the query that answers a RemindProgress (the Temporal UI's Queries tab, `badged admin
// reminders status`).
const ReminderProgressQuery = "progress"

// reminderRoundsPerRun bounds one run's history (about 11 events a round) before it continues as new.
const reminderRoundsPerRun = 500

// RemindInput configures RemindExpiring; a continued run carries its totals.
type RemindInput struct {
	Every  time.Duration // between rounds; 0 = ReminderInterval
	Rounds int           // stop after this many rounds of this run (tests, recorded histories); 0 = never stop
	Done   int           // rounds of the earlier runs
	Total  activities.ReminderResult
}

// RemindProgress is what the run has done so far.
type RemindProgress struct {
	Rounds      int                       `json:"rounds"`
	Total       activities.ReminderResult `json:"total"`
	Last        activities.ReminderResult `json:"last"`
	LastRoundAt time.Time                 `json:"lastRoundAt"`
	NextRoundAt time.Time                 `json:"nextRoundAt"`
}

// RemindExpiring is the durable timer loop of expiry reminders: a round (SendExpiryReminders: send what was
// claimed and not sent, then claim and send what fell due by the workflow's time), a durable timer of Every, again;
// every reminderRoundsPerRun rounds it continues as new. The claim rows in Postgres, not this workflow's state,
// say what was sent, so one workflow serves any number of assertions (a round reads only the badges with a policy
// and, per badge, the assertions within its longest reminder, by index) and a policy edit needs no signal.
func RemindExpiring(ctx workflow.Context, in RemindInput) (RemindProgress, error) {
	every := in.Every
	if every <= 0 {
		every = ReminderInterval
	}
	p := RemindProgress{Rounds: in.Done, Total: in.Total}
	if err := workflow.SetQueryHandler(ctx, ReminderProgressQuery, func() (RemindProgress, error) { return p, nil }); err != nil {
		return p, err
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    time.Minute,
		// Retried until it succeeds: a round is resumable (what it claimed stays claimed) and the loop must not end.
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 10 * time.Second, BackoffCoefficient: 2,
			MaximumInterval: ReminderInterval},
	})
	for i := 1; ; i++ {
		now := workflow.Now(ctx)
		var r activities.ReminderResult
		if err := workflow.ExecuteActivity(actx, a.SendExpiryReminders, activities.ReminderSweep{Now: now}).Get(ctx, &r); err != nil {
			return p, err
		}
		p.Rounds++
		p.Last, p.Total, p.LastRoundAt = r, p.Total.Add(r), now
		if in.Rounds > 0 && i >= in.Rounds {
			return p, nil
		}
		if i >= reminderRoundsPerRun {
			return p, workflow.NewContinueAsNewError(ctx, RemindExpiring,
				RemindInput{Every: in.Every, Done: p.Rounds, Total: p.Total})
		}
		p.NextRoundAt = now.Add(every)
		if err := workflow.Sleep(ctx, every); err != nil {
			return p, err
		}
	}
}
