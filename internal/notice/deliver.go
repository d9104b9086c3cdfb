package notice

import (
	"context"

	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/notify"
)

// Deliver sends a message about an assertion of mode: a test-mode credential's goes to outbox, never to its
// recipient; a live one's through notifier, or to outbox too when the deployment has no notifier. The issue
// notice, the expiry reminder and the operator's resend all go this way.
func Deliver(ctx context.Context, notifier *notify.Notifier, outbox notify.Sender, mode string, n notify.Notification) error {
	var err error
	if mode == apikey.ModeTest || notifier == nil {
		_, err = outbox.Send(ctx, n)
	} else {
		_, err = notifier.Notify(ctx, n)
	}
	return err
}
