package notify_test

import (
	"context"
	"mime"
	"net/mail"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/notify"
)

// An expiry reminder is its own message: reminder templates in the recipient's language, the expiry date, the
// renewal link when there is one, and a message id per reminder, distinct from the issue mail's and the others'.
func TestOutbox_ExpiryReminder(t *testing.T) {
	dir := t.TempDir()
	out, err := notify.NewOutbox(dir, "Badged <noreply@badged.example>")
	require.NoError(t, err)
	exp := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
	read := func(id string) (*mail.Message, string) {
		t.Helper()
		raw, err := os.ReadFile(out.Path(id))
		require.NoError(t, err)
		m, err := mail.ReadMessage(strings.NewReader(string(raw)))
		require.NoError(t, err)
		return m, strings.ReplaceAll(string(raw), "=\r\n", "")
	}
	for _, c := range []struct {
		locale, name, subject, renewText string
	}{
		{"en", "Alice Smith", "expires on", "Renew"},
		{"ko", "김민수", "만료됩니다", "갱신"},
	} {
		t.Run(c.locale, func(t *testing.T) {
			n := koreanNotification()
			n.RecipientName, n.Locale, n.ExpiresAt, n.Location = c.name, c.locale, &exp, time.UTC
			n.Reminder = &notify.Reminder{DaysBefore: 7, RenewURL: "https://b.example/r/1"}
			r, err := out.Send(context.Background(), n)
			require.NoError(t, err)
			require.Equal(t, notify.ReminderMessageID(n.AssertionID, 7, "badged.example"), r.MessageID)
			require.NotEqual(t, notify.MessageID(n.AssertionID, "badged.example"), r.MessageID)
			require.NotEqual(t, notify.ReminderMessageID(n.AssertionID, 1, "badged.example"), r.MessageID)
			m, raw := read(r.MessageID)
			subj, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
			require.NoError(t, err)
			require.Contains(t, subj, c.subject)
			require.Contains(t, subj, "2027")
			require.Contains(t, raw, "https://b.example/r/1")
			require.Contains(t, raw, "https://badges.example.com/v/0b4c1c2e", "the badge page")

			n.Reminder.RenewURL = "" // the organization does not renew: no link
			n.Reminder.DaysBefore = 1
			r, err = out.Send(context.Background(), n)
			require.NoError(t, err)
			_, raw = read(r.MessageID)
			require.NotContains(t, raw, "b.example/r/1")
		})
	}
	t.Run("kakao", func(t *testing.T) {
		n := koreanNotification()
		n.Channel, n.Phone, n.Locale, n.ExpiresAt = notify.KakaoTalk, "010-1234-5678", "ko", &exp
		n.Reminder = &notify.Reminder{DaysBefore: 30}
		r, err := out.Send(context.Background(), n)
		require.NoError(t, err)
		require.Equal(t, n.AssertionID+".expiring-30.kakao", r.MessageID)
		_, raw := read(r.MessageID)
		require.Contains(t, raw, "만료됩니다")
	})
}
