package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/workflows"
)

// remindersOut is `badged admin reminders status`: the claim rows by state (Postgres, the truth of what was sent)
// and the sweep workflow's own progress (its query; left out with the reason when Temporal does not answer).
type remindersOut struct {
	BadgesWithPolicy   int64                     `json:"badgesWithPolicy"`
	ByState            map[string]int64          `json:"byState"`
	OldestPendingRetry *time.Time                `json:"oldestPendingAttempt,omitempty"`
	LastSent           *time.Time                `json:"lastSent,omitempty"`
	WorkflowID         string                    `json:"workflowId"`
	TemporalUIURL      string                    `json:"temporalUiUrl"`
	Progress           *workflows.RemindProgress `json:"progress,omitempty"`
	ProgressError      string                    `json:"progressError,omitempty"`
}

func adminReminders(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "status" {
		return errUsage
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	out := remindersOut{ByState: map[string]int64{}, WorkflowID: workflows.ReminderWorkflowID,
		TemporalUIURL: temporalUIURL(cfg, workflows.ReminderWorkflowID)}
	if out.BadgesWithPolicy, err = d.CountBadgesWithReminders(ctx); err != nil {
		return err
	}
	rows, err := d.ReminderCounts(ctx)
	if err != nil {
		return err
	}
	for _, r := range rows {
		out.ByState[r.State] = r.Count
		if r.State == string(db.ReminderClaimed) {
			t := r.OldestNextAttempt
			out.OldestPendingRetry = &t
		}
		if r.State == string(db.ReminderSent) {
			t := r.LastSent
			out.LastSent = &t
		}
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if p, err := queryReminderProgress(qctx, cfg); err != nil {
		out.ProgressError = err.Error()
	} else {
		out.Progress = &p
	}
	return json.NewEncoder(stdout).Encode(out)
}

func queryReminderProgress(ctx context.Context, cfg config.Config) (workflows.RemindProgress, error) {
	var p workflows.RemindProgress
	c, err := dialAdminTemporal(ctx, cfg)
	if err != nil {
		return p, err
	}
	defer c.Close()
	v, err := c.QueryWorkflow(ctx, workflows.ReminderWorkflowID, "", workflows.ReminderProgressQuery)
	if err != nil {
		return p, fmt.Errorf("query %s: %w", workflows.ReminderWorkflowID, err)
	}
	return p, v.Get(&p)
}
