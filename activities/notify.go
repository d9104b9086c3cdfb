package activities

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/notify"
)

// NotifyRecipient tells the recipient by email or KakaoTalk. A notifications row is written before the message
// leaves (SMTP has no idempotency), with a message id derived from the assertion id: a retry after a sent message
// finds the row SENT and sends nothing; a retry after a lost answer re-sends with the same Message-ID, which the
// recipient's mail system recognises. Test-mode issuances deliver to the outbox only.
func (a *Activities) NotifyRecipient(ctx context.Context, in StepInput) error {
	return a.fail(ctx, "notify", in, a.notifyRecipient(ctx, in))
}

func (a *Activities) notifyRecipient(ctx context.Context, in StepInput) error {
	row, err := a.DB.GetPipelineAssertion(ctx, in.AssertionID)
	if err != nil {
		return fmt.Errorf("load assertion: %w", err)
	}
	as := row.Assertion
	if as.Step != StepUploaded {
		return nil
	}
	n := notify.Notification{AssertionID: as.ID.String(), Channel: notify.Channel(as.ReceiveType), Locale: "ko",
		RecipientName: as.RecipientName, Email: deref(as.RecipientEmail), Phone: deref(as.RecipientPhone),
		BadgeName: row.BadgeName, IssuerName: row.OrgName,
		BadgeImageURL: a.Issuer.BaseURL + "/credentials/" + as.ID.String() + "/image",
		VerifyURL:     a.Issuer.VerifyURL(as.ID)}
	if err := a.DB.CreateNotification(ctx, db.CreateNotificationParams{AssertionID: as.ID,
		MessageID: notify.MessageID(as.ID.String(), a.MessageDomain), Channel: as.ReceiveType}); err != nil {
		return persistErr("record notification", err)
	}
	note, err := a.DB.GetNotification(ctx, as.ID)
	if err != nil {
		return persistErr("read notification", err)
	}
	if note.Status != "SENT" {
		var sendErr error
		if as.Mode == "test" || a.Notifier == nil {
			_, sendErr = a.Outbox.Send(ctx, n)
		} else {
			_, sendErr = a.Notifier.Notify(ctx, n)
		}
		if sendErr != nil {
			msg := sendErr.Error()
			if err := a.DB.MarkNotificationFailed(ctx, db.MarkNotificationFailedParams{AssertionID: as.ID, LastError: &msg}); err != nil {
				a.logger(ctx, in).WarnContext(ctx, "record notification failure", "err", err)
			}
			return sendErr
		}
		if err := a.recordSent(ctx, as.ID); err != nil {
			return persistErr("record notification sent", err)
		}
	}
	if _, err := a.DB.SetAssertionStep(ctx, db.SetAssertionStepParams{ID: as.ID, Step: StepNotified, FromStep: StepUploaded}); err != nil {
		return persistErr("record notify step", err)
	}
	return nil
}

// recordSent marks the notification SENT, retrying for up to sentRecordWindow: the message has left, and a retry
// of the whole step after a database blip (a Postgres restart, a failover) would send it a second time.
func (a *Activities) recordSent(ctx context.Context, assertion uuid.UUID) error {
	deadline := time.Now().Add(sentRecordWindow)
	wait := 100 * time.Millisecond
	for {
		err := a.DB.MarkNotificationSent(ctx, assertion)
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		a.Log.WarnContext(ctx, "record notification sent: retrying", "assertionId", assertion, "err", err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// sentRecordWindow is how long recordSent keeps trying; a Postgres restart takes a few seconds.
const sentRecordWindow = 30 * time.Second
