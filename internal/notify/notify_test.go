package notify_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/notify"
)

// fakeSender records what it was asked to send.
type fakeSender struct{ sent []notify.Notification }

var _ notify.Sender = (*fakeSender)(nil)

func (f *fakeSender) Send(_ context.Context, n notify.Notification) (notify.Receipt, error) {
	f.sent = append(f.sent, n)
	return notify.Receipt{Channel: n.Channel, MessageID: "id"}, nil
}

func TestNotifierRouting(t *testing.T) {
	tests := []struct {
		name      string
		mutate    func(n *notify.Notification)
		noKakao   bool
		wantCode  errcode.Code
		wantEmail int
		wantKakao int
	}{
		{name: "email", mutate: func(n *notify.Notification) {}, wantEmail: 1},
		{name: "kakao", mutate: func(n *notify.Notification) {
			n.Channel, n.Phone = notify.KakaoTalk, "01012345678"
		}, wantKakao: 1},
		{name: "email missing", mutate: func(n *notify.Notification) { n.Email = " " },
			wantCode: errcode.NotificationRecipientMissing},
		{name: "phone missing", mutate: func(n *notify.Notification) { n.Channel = notify.KakaoTalk },
			wantCode: errcode.NotificationRecipientMissing},
		{name: "unknown channel", mutate: func(n *notify.Notification) { n.Channel = "SMS" },
			wantCode: errcode.NotificationChannelUnsupported},
		{name: "empty channel", mutate: func(n *notify.Notification) { n.Channel = "" },
			wantCode: errcode.NotificationChannelUnsupported},
		{name: "kakao not configured", noKakao: true, mutate: func(n *notify.Notification) {
			n.Channel, n.Phone = notify.KakaoTalk, "01012345678"
		}, wantCode: errcode.NotificationChannelUnsupported},
		{name: "no assertion id", mutate: func(n *notify.Notification) { n.AssertionID = "" },
			wantCode: errcode.NotificationDeliveryFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			email, kakao := &fakeSender{}, &fakeSender{}
			nt := &notify.Notifier{Email: email, Kakao: kakao}
			if tt.noKakao {
				nt.Kakao = nil
			}
			n := koreanNotification()
			tt.mutate(&n)
			_, err := nt.Notify(context.Background(), n)
			require.Equal(t, tt.wantCode, errcode.Of(err), "got %v", err)
			require.Len(t, email.sent, tt.wantEmail)
			require.Len(t, kakao.sent, tt.wantKakao)
		})
	}
}

func TestMessageIDIsStable(t *testing.T) {
	require.Equal(t, "a1.badge@x.example", notify.MessageID("a1", "x.example"))
	hostile := notify.MessageID("a b<>@c", "x.example")
	require.Equal(t, hostile, notify.MessageID("a b<>@c", "x.example"))
	require.Regexp(t, `^h[0-9a-f]{32}\.badge@x\.example$`, hostile)
}
