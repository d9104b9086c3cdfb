package activities

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/notify"
)

// NotifyWorkers bounds the messages of one chunk in flight at once (SMTP sessions or provider calls).
const NotifyWorkers = 4

// NotifyRecipients tells each recipient by email or KakaoTalk. A notifications row is written before any message
// leaves (SMTP has no idempotency), with a message id derived from the assertion id, and each message is marked
// SENT as soon as it is accepted: a retry finds it SENT and sends nothing; a retry after a lost answer re-sends
// with the same Message-ID, which the recipient's mail system recognises. Test-mode issuances deliver to the
// outbox only.
func (a *Activities) NotifyRecipients(ctx context.Context, in StepBatch) (StepResult, error) {
	return a.runStep(ctx, "notify", in, a.notifyRecipients)
}

func (a *Activities) notifyRecipients(ctx context.Context, ids []uuid.UUID) (failures, error) {
	rows, failed, err := a.loadChunk(ctx, ids)
	if err != nil {
		return nil, err
	}
	todo := rows.at(StepUploaded)
	if len(todo) == 0 {
		return failed, nil
	}
	create := db.CreateNotificationsParams{}
	for _, r := range todo {
		create.Ids = append(create.Ids, r.Assertion.ID)
		create.MessageIds = append(create.MessageIds, notify.MessageID(r.Assertion.ID.String(), a.MessageDomain))
		create.Channels = append(create.Channels, r.Assertion.ReceiveType)
	}
	if err := a.DB.CreateNotifications(ctx, create); err != nil {
		return nil, persistErr("record notifications", err)
	}
	notes, err := a.DB.ListNotifications(ctx, create.Ids)
	if err != nil {
		return nil, persistErr("read notifications", err)
	}
	sent := make(map[uuid.UUID]bool, len(notes))
	for _, n := range notes {
		sent[n.AssertionID] = n.Status == "SENT"
	}
	errs := forEach(ctx, len(todo), NotifyWorkers, func(ctx context.Context, i int) error {
		if sent[todo[i].Assertion.ID] {
			return nil
		}
		return a.send(ctx, todo[i])
	})
	ok := todo.succeeded(errs, failed)
	if len(ok) == 0 {
		return failed, nil
	}
	done := make([]uuid.UUID, len(ok))
	for j, i := range ok {
		done[j] = todo[i].Assertion.ID
	}
	if _, err := a.DB.AdvanceAssertions(ctx, db.AdvanceAssertionsParams{Ids: done, Step: StepNotified, FromStep: StepUploaded}); err != nil {
		return nil, persistErr("record notify step", err)
	}
	return failed, nil
}

// send delivers one recipient's message and records the outcome on its notifications row.
func (a *Activities) send(ctx context.Context, row db.ListPipelineAssertionsRow) error {
	as := row.Assertion
	n := a.notification(ctx, as, row.BadgeName, row.OrgName)
	if err := a.attachWalletOffer(ctx, as, &n); err != nil {
		return persistErr("create wallet offer", err)
	}
	var err error
	if as.Mode == "test" || a.Notifier == nil {
		_, err = a.Outbox.Send(ctx, n)
	} else {
		_, err = a.Notifier.Notify(ctx, n)
	}
	if err != nil {
		msg := err.Error()
		if ferr := a.DB.MarkNotificationFailed(ctx, db.MarkNotificationFailedParams{AssertionID: as.ID, LastError: &msg}); ferr != nil {
			a.logger(ctx, assertionSubject{as.ID, as.IssuanceID}).WarnContext(ctx, "record notification failure", "err", ferr)
		}
		return err
	}
	if err := a.recordSent(ctx, as.ID); err != nil {
		return persistErr("record notification sent", err)
	}
	return nil
}

// MaxInlineBadge caps the baked image a mail carries inline: a baked PNG up to this size goes in the mail (the
// recipient then holds the verifiable badge itself); a larger one, or an SVG (which mail clients do not show), is
// linked instead, so a message stays well under common 10-25 MB limits.
const MaxInlineBadge = 1 << 20

// DefaultMailFromName is the From display name pattern when MailFromName is empty.
const DefaultMailFromName = "{org} via badged"

// BuildNotification builds the message the worker sends, for `badged admin notification resend`: the same wallet
// offer included (a.DB set). It is a function, not a method: every exported method of Activities is registered as
// a Temporal activity.
func BuildNotification(ctx context.Context, a *Activities, as db.Assertion, badgeName, orgName string) (notify.Notification, error) {
	n := a.notification(ctx, as, badgeName, orgName)
	if a.DB == nil {
		return n, nil
	}
	return n, a.attachWalletOffer(ctx, as, &n)
}

// notification builds a recipient's message: the organization's name as the From display name (the address is
// the deployment's), the expiry, the badge page and the recipient's PDF certificate, the baked badge inline (when
// Blob is set), in the language the names are written in (notify.LocaleFor). It needs Issuer, Location,
// MailFromName and Log only, so `badged admin notification resend` builds the same message.
func (a *Activities) notification(ctx context.Context, as db.Assertion, badgeName, orgName string) notify.Notification {
	pattern := a.MailFromName
	if pattern == "" {
		pattern = DefaultMailFromName
	}
	n := notify.Notification{AssertionID: as.ID.String(), Channel: notify.Channel(as.ReceiveType),
		Locale:        notify.LocaleFor(as.RecipientName, orgName, badgeName),
		RecipientName: as.RecipientName, Email: deref(as.RecipientEmail), Phone: deref(as.RecipientPhone),
		BadgeName: badgeName, IssuerName: orgName,
		BadgeImageURL:  a.Issuer.BaseURL + "/credentials/" + as.ID.String() + "/image",
		VerifyURL:      a.Issuer.VerifyURL(as.ID),
		CertificateURL: a.Issuer.CertificateURL(as.ID, as.CertificateToken),
		ExpiresAt:      as.ExpiredAt, Location: a.Location,
		FromName: notify.FromDisplayName(pattern, orgName)}
	if a.Blob != nil && as.ReceiveType == string(notify.Email) && as.BakedKey != nil && as.BakedContentType != nil && *as.BakedContentType == "image/png" {
		img, err := a.readInline(ctx, *as.BakedKey)
		if err != nil {
			// The link still shows the badge: a mail without the inline copy beats no mail.
			a.Log.WarnContext(ctx, "inline badge image left out", "assertionId", as.ID, "err", err)
		}
		n.BadgeImage, n.BadgeImageType = img, "image/png"
	}
	return n
}

// readInline reads a stored image for a mail, or nil when it is larger than MaxInlineBadge.
func (a *Activities) readInline(ctx context.Context, key string) ([]byte, error) {
	rc, info, err := a.Blob.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) || (err == nil && info.Size > MaxInlineBadge) {
		if rc != nil {
			rc.Close()
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxInlineBadge+1))
	if err != nil || len(b) > MaxInlineBadge {
		return nil, err
	}
	return b, nil
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
