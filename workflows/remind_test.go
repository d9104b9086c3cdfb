package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
)

// countingSender delivers to an outbox and counts the sends of each message id: the outbox keeps one file per id,
// so a second send of the same reminder would not show there.
type countingSender struct {
	out  *notify.Outbox
	mu   sync.Mutex
	sent map[string]int
	by   map[string]notify.Notification
}

func (c *countingSender) Send(ctx context.Context, n notify.Notification) (notify.Receipt, error) {
	r, err := c.out.Send(ctx, n)
	if err == nil {
		c.mu.Lock()
		c.sent[r.MessageID]++
		c.by[r.MessageID] = n
		c.mu.Unlock()
	}
	return r, err
}

// remindFixture is an organization, a badge with a reminder policy and its live assertions, on a fresh database,
// and real activities that send to a counting outbox.
type remindFixture struct {
	db     *db.DB
	org    uuid.UUID
	badge  uuid.UUID
	acts   *activities.Activities
	sender *countingSender
}

func newRemindFixture(t testing.TB, policy []int32) *remindFixture {
	t.Helper()
	ctx := context.Background()
	d := dbtest.New(t)
	f := &remindFixture{db: d, org: uuid.New(), badge: uuid.New()}
	img, prog := uuid.New(), uuid.New()
	_, err := d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: f.org, Name: "Badged Academy", Credits: 10})
	require.NoError(t, err)
	_, err = d.CreateMediaFile(ctx, db.CreateMediaFileParams{ID: img, OrgID: f.org, ContentType: "image/png",
		Ext: "png", Width: 1, Height: 1, SizeBytes: 4})
	require.NoError(t, err)
	_, err = d.CreateProgram(ctx, db.CreateProgramParams{ID: prog, OrgID: f.org, Name: "Program", CategoryCode: "ETC", ImageID: img})
	require.NoError(t, err)
	_, err = d.CreateBadge(ctx, db.CreateBadgeParams{ID: f.badge, OrgID: f.org, Name: "Go Expert", Description: "Writes Go",
		Criteria: json.RawMessage(`[]`), CategoryCode: "ETC", ImageID: img, Skills: json.RawMessage(`[]`)})
	require.NoError(t, err)
	f.setPolicy(t, policy...)
	out, err := notify.NewOutbox(t.TempDir(), "badged@example.com")
	require.NoError(t, err)
	f.sender = &countingSender{out: out, sent: map[string]int{}, by: map[string]notify.Notification{}}
	f.acts = &activities.Activities{DB: d, Outbox: f.sender, Issuer: &issuer.Service{BaseURL: "https://badges.example"},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Location: time.UTC}
	f.setRenewalURL(t, remindRenewalURL)
	return f
}

// mailOverSMTP sends the fixture's reminders to a real SMTP server, which it returns, instead of the counting outbox.
func (f *remindFixture) mailOverSMTP(t testing.TB) *smtptest.Server {
	t.Helper()
	srv := smtptest.Start(t, smtptest.Options{NoTLS: true})
	mailer, err := notify.NewSMTP(notify.SMTPConfig{Host: srv.Host, Port: srv.Port, TLS: notify.TLSNone,
		From: "Badged <noreply@example.com>", Timeout: 10 * time.Second})
	require.NoError(t, err)
	f.acts.Outbox = mailer
	return srv
}

// remindRenewalURL is the fixture organization's renewal URL: it offers renewal on its own page.
const remindRenewalURL = "https://academy.example/renew/" + activities.RenewalPlaceholder

// setRenewalURL sets the organization's renewal URL; "" clears it (no renewal offered).
func (f *remindFixture) setRenewalURL(t testing.TB, u string) {
	t.Helper()
	_, err := f.db.UpdateOrganizationProfile(context.Background(), db.UpdateOrganizationProfileParams{ID: f.org, RenewalUrl: &u})
	require.NoError(t, err)
}

func (f *remindFixture) setPolicy(t testing.TB, days ...int32) {
	t.Helper()
	_, err := f.db.SetBadgeExpiryReminders(context.Background(),
		db.SetBadgeExpiryRemindersParams{OrgID: f.org, ID: f.badge, Days: append([]int32{}, days...)})
	require.NoError(t, err)
}

// holder is one recipient of the fixture's issuance.
type holder struct {
	name, channel, state string
	expires              *time.Time
}

// issue inserts an issuance of the badge with the holders as assertions in their state (ISSUED by default).
func (f *remindFixture) issue(t testing.TB, at time.Time, hs ...holder) []uuid.UUID {
	t.Helper()
	ctx := context.Background()
	b, err := f.db.GetBadge(ctx, db.GetBadgeParams{OrgID: f.org, ID: f.badge})
	require.NoError(t, err)
	var prog uuid.UUID
	require.NoError(t, f.db.Pool.QueryRow(ctx, `SELECT id FROM programs WHERE org_id = $1`, f.org).Scan(&prog))
	iss := uuid.New()
	_, err = f.db.CreateIssuance(ctx, db.CreateIssuanceParams{ID: iss, OrgID: f.org, BadgeID: b.ID, ProgramID: prog,
		ApiVersion: 3, Mode: "live", IdempotencyKey: iss.String(), RequestHash: []byte{1}, IssuedAt: at,
		AssertionCount: int32(len(hs)), CreditsDebited: int32(len(hs)), WorkflowID: "wf-" + iss.String()})
	require.NoError(t, err)
	ids := make([]uuid.UUID, len(hs))
	rows := make([]db.InsertAssertionsParams, len(hs))
	for i, h := range hs {
		ids[i] = uuid.New()
		r := db.InsertAssertionsParams{ID: ids[i], OrgID: f.org, IssuanceID: iss, BadgeID: b.ID, ProgramID: prog,
			Mode: "live", ApiVersion: 3, Seq: int32(i), SerialNumber: "S-" + ids[i].String(), RecipientName: h.name,
			ReceiveType: h.channel, IssuedAt: at, ExpiredAt: h.expires, CreatedAt: at}
		if h.channel == "KAKAOTALK" {
			r.RecipientPhone = ptrTo("+821012345678")
		} else {
			r.RecipientEmail = ptrTo(fmt.Sprintf("r%d@example.com", i))
		}
		rows[i] = r
	}
	_, err = f.db.InsertAssertions(ctx, rows)
	require.NoError(t, err)
	for i, h := range hs {
		state := h.state
		if state == "" {
			state = "ISSUED"
		}
		_, err := f.db.Pool.Exec(ctx, `UPDATE assertions SET state = $2, step = 'NOTIFIED' WHERE id = $1`, ids[i], state)
		require.NoError(t, err)
	}
	return ids
}

func ptrTo[T any](v T) *T { return &v }

// reminders returns the reminder rows of an assertion by days before expiry.
func (f *remindFixture) reminders(t *testing.T, id uuid.UUID) map[int32]db.ExpiryReminder {
	t.Helper()
	rows, err := f.db.ListAssertionReminders(context.Background(), []uuid.UUID{id})
	require.NoError(t, err)
	out := map[int32]db.ExpiryReminder{}
	for _, r := range rows {
		out[r.DaysBefore] = r
	}
	return out
}

func remindEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(RemindExpiring)
	return env
}

// Days pass in seconds: 35 days of rounds every 6 hours on Temporal's time-skipping test environment, with the
// real activity on Postgres. Each reminder leaves once, in the round after it fell due, by the recipient's channel
// and in the language of the names; a reminder that fell due together with a nearer one is not sent; a policy edit
// reschedules what was not sent; revoked and never-expiring assertions get nothing.
func TestRemindExpiring_DaysPassOnDurableTimers(t *testing.T) {
	f := newRemindFixture(t, []int32{7, 1})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	in30, in3 := t0.Add(30*day), t0.Add(3*day)
	ids := f.issue(t, t0,
		holder{name: "Alice Smith", channel: "EMAIL", expires: &in30},
		holder{name: "김민수", channel: "KAKAOTALK", expires: &in30},
		holder{name: "Bob Short", channel: "EMAIL", expires: &in3},
		holder{name: "Rita Revoked", channel: "EMAIL", expires: &in30, state: "REVOKED"},
		holder{name: "Nora Never", channel: "EMAIL"})
	alice, minsu, bob, rita, nora := ids[0], ids[1], ids[2], ids[3], ids[4]

	env := remindEnv()
	env.SetStartTime(t0)
	env.RegisterActivity(f.acts)
	// On day 24, after the 7-day reminders of day 23, the organization changes the policy to [14, 3]: the 3-day
	// reminder is due on day 27; the 14-day one is never sent (a nearer one was), the 1-day one is gone.
	env.RegisterDelayedCallback(func() { f.setPolicy(t, 14, 3) }, 24*day)
	const every = 6 * time.Hour
	env.ExecuteWorkflow(RemindExpiring, RemindInput{Every: every, Rounds: 35 * 4})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var p RemindProgress
	require.NoError(t, env.GetWorkflowResult(&p))
	require.Equal(t, 140, p.Rounds)
	require.Equal(t, activities.ReminderResult{Claimed: 6, Sent: 6}, p.Total)

	sentWithin := func(r db.ExpiryReminder, from time.Time) {
		t.Helper()
		require.Equal(t, "SENT", r.State)
		require.EqualValues(t, 1, r.Attempts)
		require.NotNil(t, r.SentAt)
		require.False(t, r.SentAt.Before(from), "sent %s, due %s", r.SentAt, from)
		require.True(t, r.SentAt.Before(from.Add(every)), "sent %s, due %s: more than a round late", r.SentAt, from)
	}
	for _, id := range []uuid.UUID{alice, minsu} {
		rs := f.reminders(t, id)
		require.Len(t, rs, 2, "the 7-day and, after the edit, the 3-day reminder")
		sentWithin(rs[7], in30.Add(-7*day))
		sentWithin(rs[3], in30.Add(-3*day))
	}
	rs := f.reminders(t, bob)
	require.Len(t, rs, 2)
	sentWithin(rs[7], t0) // 3 days left when the sweep first ran: the 7-day reminder at once, not also a 30-day one
	sentWithin(rs[1], in3.Add(-1*day))
	require.Empty(t, f.reminders(t, rita))
	require.Empty(t, f.reminders(t, nora))

	// Exactly once each, by channel, in the recipient's language, with the renewal link.
	require.Len(t, f.sender.sent, 6)
	for id, n := range f.sender.sent {
		require.Equal(t, 1, n, id)
	}
	mail := f.sender.by[notify.ReminderMessageID(alice.String(), 7, "example.com")]
	require.Equal(t, notify.Email, mail.Channel)
	require.Equal(t, "en", mail.Locale)
	require.Equal(t, "https://academy.example/renew/"+alice.String(), mail.Reminder.RenewURL)
	kakao := f.sender.by[minsu.String()+".expiring-3.kakao"]
	require.Equal(t, notify.KakaoTalk, kakao.Channel)
	require.Equal(t, "ko", kakao.Locale)
}

// The worker dies between the claim and the message: the first attempt of a round claims the due reminders and
// fails before sending (as a killed worker's attempt times out); Temporal retries the activity, whose next attempt
// finds them claimed and unsent and sends each once.
func TestRemindExpiring_CrashBetweenClaimAndMail(t *testing.T) {
	f := newRemindFixture(t, []int32{30})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in10 := t0.Add(10 * 24 * time.Hour)
	ids := f.issue(t, t0, holder{name: "Alice Smith", channel: "EMAIL", expires: &in10},
		holder{name: "김민수", channel: "KAKAOTALK", expires: &in10})

	env := remindEnv()
	env.SetStartTime(t0)
	var attempts int
	crashed := false
	env.RegisterActivityWithOptions(func(ctx context.Context, in activities.ReminderSweep) (activities.ReminderResult, error) {
		attempts++
		if !crashed {
			crashed = true
			// The lease names this activity, as the real round's claim would: its retry takes the rows at once.
			rows, err := f.db.ClaimDueReminders(ctx, db.ClaimDueRemindersParams{Now: in.Now, Batch: activities.ReminderBatch,
				Owner: activities.ReminderOwner(ctx), LeaseSeconds: activities.ReminderLease.Seconds()})
			require.NoError(t, err)
			require.Len(t, rows, 2)
			return activities.ReminderResult{}, errors.New("worker killed after the claim")
		}
		return f.acts.SendExpiryReminders(ctx, in)
	}, activity.RegisterOptions{Name: "SendExpiryReminders"})
	env.ExecuteWorkflow(RemindExpiring, RemindInput{Rounds: 3})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, 4, attempts, "the failed attempt, its retry, two more rounds")
	var p RemindProgress
	require.NoError(t, env.GetWorkflowResult(&p))
	require.Equal(t, activities.ReminderResult{Sent: 2}, p.Total, "sent by the retry, claimed by the dead attempt")
	require.Len(t, f.sender.sent, 2)
	for id, n := range f.sender.sent {
		require.Equal(t, 1, n, id)
	}
	for _, id := range ids {
		r := f.reminders(t, id)[30]
		require.Equal(t, "SENT", r.State)
		require.EqualValues(t, 1, r.Attempts)
	}
}
