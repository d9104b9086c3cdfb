package workflows

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/notify"
)

// Two sweeps side by side (two namespaces' workers on one database, a re-run beside the running one), each running
// rounds back to back, on Postgres and a real SMTP server: every reminder is one message. Besides the reminders
// that fall due, a dead worker's claims (lease run out) are sent once, by one of the two, and a live sweep's claims
// (lease running) are left to it.
func TestSendExpiryReminders_TwoSweepsSideBySide(t *testing.T) {
	f := newRemindFixture(t, []int32{30})
	srv := f.mailOverSMTP(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in10 := t0.Add(10 * 24 * time.Hour)
	holders := func(prefix string, n int) []holder {
		hs := make([]holder, n)
		for i := range hs {
			hs[i] = holder{name: fmt.Sprintf("%s %d", prefix, i), channel: "EMAIL", expires: &in10}
		}
		return hs
	}
	claim := func(owner string, lease time.Duration, want int) {
		rows, err := f.db.ClaimDueReminders(ctx, db.ClaimDueRemindersParams{Now: t0, Batch: activities.ReminderBatch,
			Owner: owner, LeaseSeconds: lease.Seconds()})
		require.NoError(t, err)
		require.Len(t, rows, want)
	}
	dead := f.issue(t, t0, holders("Dead", 20)...)
	claim("dead-worker", -time.Second, len(dead)) // claimed, then the worker died: the lease ran out
	busy := f.issue(t, t0, holders("Busy", 10)...)
	claim("busy-sweep", activities.ReminderLease, len(busy)) // claimed by a sweep that is sending them now
	due := f.issue(t, t0, holders("Due", 150)...)

	const rounds = 3
	var wg sync.WaitGroup
	results := make([]activities.ReminderResult, 2)
	errs := make([]error, 2)
	for s := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				r, err := f.acts.SendExpiryReminders(ctx, activities.ReminderSweep{Now: t0})
				if err != nil {
					errs[s] = err
					return
				}
				results[s] = results[s].Add(r)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	total := results[0].Add(results[1])
	require.Equal(t, activities.ReminderResult{Claimed: len(due), Sent: len(dead) + len(due)}, total,
		"sweep 1 %+v, sweep 2 %+v", results[0], results[1])

	sent := map[string]int{}
	for _, m := range srv.Messages() {
		sent[strings.Trim(m.MessageID, "<>")]++
	}
	require.Len(t, sent, len(dead)+len(due))
	for _, id := range append(append([]uuid.UUID{}, dead...), due...) {
		mid := notify.ReminderMessageID(id.String(), 30, "example.com")
		require.Equal(t, 1, sent[mid], "reminder %s", mid)
		r := f.reminders(t, id)[30]
		require.Equal(t, "SENT", r.State)
		require.EqualValues(t, 1, r.Attempts)
	}
	for _, id := range busy {
		r := f.reminders(t, id)[30]
		require.Equal(t, "CLAIMED", r.State, "the busy sweep's lease runs")
		require.Equal(t, "busy-sweep", *r.ClaimedBy)
		require.Zero(t, sent[notify.ReminderMessageID(id.String(), 30, "example.com")])
	}
}
