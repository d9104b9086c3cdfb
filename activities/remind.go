package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/notice"
	"github.com/badged/badged/internal/notify"
)

// ReminderBatch bounds one claim of the reminder sweep (one statement, one round of messages).
const ReminderBatch = 500

// ReminderAttempts is how many times a reminder is tried before it is FAILED, when the retry table has no answer.
const ReminderAttempts = 8

// ReminderLease is how long a sweep holds the reminders it claimed or took before another sweep may take them:
// longer than a batch of ReminderBatch messages takes to send (each bounded by the sender's timeouts), so a live
// sweep never loses a claim it is sending, and a dead worker's claims are sent by another sweep this long after.
const ReminderLease = 10 * time.Minute

// ReminderSweep is one round of the reminder workflow. Now is the workflow's time: what is due is decided against
// it, so the round means the same on a retry, and Temporal's time-skipping test environment moves it by days.
// Owner names the sweep on the leases it takes; empty (as the workflow sends it), ReminderOwner decides.
type ReminderSweep struct {
	Now   time.Time
	Owner string `json:",omitempty"`
}

// ReminderOwner is the lease owner of a round run as ctx's activity: its workflow run and activity id, the same for
// every attempt, so the retry of an attempt that died takes its claims at once instead of after the lease. Outside
// an activity (a benchmark, a test) each call is a sweep of its own.
func ReminderOwner(ctx context.Context) string {
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		return info.WorkflowExecution.ID + "/" + info.WorkflowExecution.RunID + "/" + info.ActivityID
	}
	return "sweep-" + uuid.NewString()
}

// ReminderResult counts what one round did.
type ReminderResult struct {
	Claimed   int `json:"claimed"`   // reminders that fell due and were claimed in this round
	Sent      int `json:"sent"`      // messages accepted (claimed in this round or earlier)
	Retrying  int `json:"retrying"`  // failed attempts to be tried again later
	Failed    int `json:"failed"`    // refused for good or out of attempts
	Cancelled int `json:"cancelled"` // the assertion stopped being live before its reminder left
}

// Add sums two results.
func (r ReminderResult) Add(o ReminderResult) ReminderResult {
	return ReminderResult{Claimed: r.Claimed + o.Claimed, Sent: r.Sent + o.Sent, Retrying: r.Retrying + o.Retrying,
		Failed: r.Failed + o.Failed, Cancelled: r.Cancelled + o.Cancelled}
}

// reminderKey names one reminder: its row's primary key.
type reminderKey struct {
	assertion uuid.UUID
	days      int32
}

// SendExpiryReminders is one round of the reminder sweep. It first takes and sends the reminders claimed earlier and
// not yet sent whose attempt is due and whose lease is free (an attempt that died between claim and message leaves
// them CLAIMED: the retry of this activity takes them at once, any other sweep after ReminderLease; a sweep running
// beside this one keeps its own), then claims what fell due by Now (db/queries/reminders.sql: the insert of the
// (assertion, days) row is the exactly-once guard) and sends it, in batches of ReminderBatch, heartbeating its
// progress (the Temporal UI shows it on the pending activity).
func (a *Activities) SendExpiryReminders(ctx context.Context, in ReminderSweep) (ReminderResult, error) {
	if in.Owner == "" {
		in.Owner = ReminderOwner(ctx)
	}
	lease := ReminderLease.Seconds()
	var res ReminderResult
	for {
		rows, err := a.DB.TakePendingReminders(ctx, db.TakePendingRemindersParams{Owner: in.Owner, LeaseSeconds: lease,
			Now: in.Now, Batch: ReminderBatch})
		if err != nil {
			return res, fmt.Errorf("pending reminders: %w", err)
		}
		keys := make([]reminderKey, len(rows))
		for i, r := range rows {
			keys[i] = reminderKey{r.AssertionID, r.DaysBefore}
		}
		if err := a.sendReminders(ctx, in, keys, &res); err != nil {
			return res, err
		}
		recordProgress(ctx, res)
		if len(rows) < ReminderBatch {
			break
		}
	}
	for {
		rows, err := a.DB.ClaimDueReminders(ctx, db.ClaimDueRemindersParams{Now: in.Now, Batch: ReminderBatch,
			Owner: in.Owner, LeaseSeconds: lease})
		if err != nil {
			return res, fmt.Errorf("claim due reminders: %w", err)
		}
		res.Claimed += len(rows)
		keys := make([]reminderKey, len(rows))
		for i, r := range rows {
			keys[i] = reminderKey{r.AssertionID, r.DaysBefore}
		}
		if err := a.sendReminders(ctx, in, keys, &res); err != nil {
			return res, err
		}
		recordProgress(ctx, res)
		if len(rows) < ReminderBatch {
			break
		}
	}
	if res != (ReminderResult{}) {
		a.Log.InfoContext(ctx, "expiry reminders", "claimed", res.Claimed, "sent", res.Sent, "retrying", res.Retrying,
			"failed", res.Failed, "cancelled", res.Cancelled)
	}
	return res, nil
}

func recordProgress(ctx context.Context, res ReminderResult) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, res)
	}
}

// sendReminders sends the claimed reminders keys and records each outcome on its row.
func (a *Activities) sendReminders(ctx context.Context, in ReminderSweep, keys []reminderKey, res *ReminderResult) error {
	if len(keys) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, 0, len(keys))
	for _, k := range keys {
		ids = append(ids, k.assertion)
	}
	rows, err := a.DB.ListPipelineAssertions(ctx, ids)
	if err != nil {
		return fmt.Errorf("read reminded assertions: %w", err)
	}
	byID := make(map[uuid.UUID]db.ListPipelineAssertionsRow, len(rows))
	for _, r := range rows {
		byID[r.Assertion.ID] = r
	}
	outcomes := make([]db.ReminderState, len(keys))
	errs := forEach(ctx, len(keys), NotifyWorkers, func(ctx context.Context, i int) error {
		var err error
		outcomes[i], err = a.sendReminder(ctx, in, keys[i], byID[keys[i].assertion])
		return err
	})
	for i, err := range errs {
		if err != nil {
			return err
		}
		switch outcomes[i] {
		case db.ReminderSent:
			res.Sent++
		case db.ReminderClaimed:
			res.Retrying++
		case db.ReminderFailed:
			res.Failed++
		case db.ReminderCancelled:
			res.Cancelled++
		}
	}
	return nil
}

// sendReminder sends one reminder and returns the state its row is left in; an error is a failure to record it.
func (a *Activities) sendReminder(ctx context.Context, in ReminderSweep, k reminderKey, row db.ListPipelineAssertionsRow) (db.ReminderState, error) {
	now := in.Now
	as := row.Assertion
	live := as.State == string(db.AssertionIssued) || as.State == string(db.AssertionReceived)
	if as.ID == uuid.Nil || !live || as.ExpiredAt == nil || !as.ExpiredAt.After(now) {
		state := as.State
		if as.ID == uuid.Nil {
			state = "gone"
		}
		return db.ReminderCancelled, a.markUnsent(ctx, in.Owner, k, db.ReminderCancelled, "assertion is "+state, now)
	}
	inline := as
	inline.BakedKey = nil // a reminder links the badge page; it does not carry the image again
	n := a.mail().Notice(ctx, inline, row.BadgeName, row.OrgName)
	n.CertificateURL = ""
	n.Reminder = &notify.Reminder{DaysBefore: int(k.days)}
	n.Reminder.RenewURL = RenewalLink(row.OrgRenewalUrl, as.ID)
	err := notice.Deliver(ctx, a.Notifier, a.Outbox, as.Mode, n)
	if err == nil {
		return db.ReminderSent, a.recordReminderSent(ctx, k, now)
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	r, err2 := a.DB.GetReminder(ctx, db.GetReminderParams{AssertionID: k.assertion, DaysBefore: k.days})
	if err2 != nil {
		return "", fmt.Errorf("read reminder: %w", err2)
	}
	retry, delay := a.reminderRetry(errcode.Of(err), int(r.Attempts)+1)
	a.logger(ctx, assertionSubject{as.ID, as.IssuanceID}).WarnContext(ctx, "expiry reminder not sent",
		"daysBefore", k.days, "retry", retry, "err", err)
	if !retry {
		return db.ReminderFailed, a.markUnsent(ctx, in.Owner, k, db.ReminderFailed, err.Error(), now)
	}
	return db.ReminderClaimed, a.markUnsent(ctx, in.Owner, k, db.ReminderClaimed, err.Error(), now.Add(delay))
}

// reminderRetry decides whether a failed reminder is tried again and when: by the retry table's class of its
// errorCode (the same classes as the issue notice), else a permanent refusal is final and anything else retried
// with a doubling delay from a minute, up to ReminderAttempts.
func (a *Activities) reminderRetry(code errcode.Code, attempt int) (bool, time.Duration) {
	if a.Policy != nil {
		return a.Policy.Decide(code, attempt)
	}
	switch code {
	case errcode.RejectedEmail, errcode.NotificationRecipientMissing, errcode.NotificationChannelUnsupported,
		errcode.KakaoSendFailed:
		return false, 0
	}
	return attempt < ReminderAttempts, time.Minute << min(attempt, 10)
}

func (a *Activities) markUnsent(ctx context.Context, owner string, k reminderKey, state db.ReminderState, msg string, next time.Time) error {
	_, err := a.DB.MarkReminderUnsent(ctx, db.MarkReminderUnsentParams{AssertionID: k.assertion, DaysBefore: k.days,
		State: string(state), LastError: &msg, NextAttemptAt: next, Owner: owner})
	if err != nil {
		return fmt.Errorf("record reminder %s: %w", state, err)
	}
	return nil
}

// recordReminderSent marks the reminder SENT, retrying for up to sentRecordWindow like recordSent: the message
// has left, and a retry of the round would send it again (with the same message id).
func (a *Activities) recordReminderSent(ctx context.Context, k reminderKey, now time.Time) error {
	deadline := time.Now().Add(sentRecordWindow)
	wait := 100 * time.Millisecond
	for {
		_, err := a.DB.MarkReminderSent(ctx, db.MarkReminderSentParams{AssertionID: k.assertion, DaysBefore: k.days, Now: now})
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			if err != nil {
				return persistErr("record reminder sent", err)
			}
			return nil
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		}
		wait = min(2*wait, 2*time.Second)
	}
}
