package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/internal/notify"
)

// The reminder mail, as a real SMTP server receives it, carries the organization's renewal link while the
// organization offers renewal (its renewal URL, {assertionId} replaced), and no renewal link once it stops.
func TestSendExpiryReminders_RenewalLinkInMail(t *testing.T) {
	f := newRemindFixture(t, []int32{30})
	srv := f.mailOverSMTP(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in10 := t0.Add(10 * 24 * time.Hour)
	sweep := func() {
		t.Helper()
		r, err := f.acts.SendExpiryReminders(context.Background(), activities.ReminderSweep{Now: t0})
		require.NoError(t, err)
		require.Equal(t, activities.ReminderResult{Claimed: 1, Sent: 1}, r)
	}
	mailOf := func(id string) string {
		t.Helper()
		want := "<" + notify.ReminderMessageID(id, 30, "example.com") + ">"
		for _, m := range srv.Messages() {
			if m.MessageID == want {
				return string(m.Data)
			}
		}
		t.Fatalf("no reminder %s among %d messages", want, len(srv.Messages()))
		return ""
	}

	offered := f.issue(t, t0, holder{name: "Alice Smith", channel: "EMAIL", expires: &in10})[0]
	sweep()
	mail := mailOf(offered.String())
	require.Contains(t, mail, "https://academy.example/renew/"+offered.String(), "the renewal link")
	require.Contains(t, mail, "/verify/"+offered.String(), "the badge page")

	f.setRenewalURL(t, "") // the organization stops offering renewal
	plain := f.issue(t, t0, holder{name: "Bob Jones", channel: "EMAIL", expires: &in10})[0]
	sweep()
	mail = mailOf(plain.String())
	require.Contains(t, mail, "/verify/"+plain.String())
	require.NotContains(t, mail, "academy.example/renew", "no renewal link without renewal")
}
