package notice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
)

// MaxResendRequestLen keeps the resend message key (assertion id + "-resend-" + request) within what
// notify.MessageID keeps readable (128 characters).
const MaxResendRequestLen = 64

// Resender re-sends the notification of an issued credential on an operator's explicit request
// (`badged admin notification resend`).
type Resender struct {
	DB       *db.DB
	Notifier *notify.Notifier // live deliveries; nil delivers to Outbox
	Outbox   notify.Sender    // test-mode assertions deliver here, like the worker
	Domain   string           // Message-ID domain
	BaseURL  string           // PUBLIC_BASE_URL
	Log      *slog.Logger
	// Mail builds the message as the worker does; nil builds it without the inline image, in UTC, with the
	// wallet offer (DB).
	Mail *Composer
}

// ResendResult is the outcome of one resend, as `admin notification resend` prints it.
type ResendResult struct {
	AssertionID string `json:"assertionId"`
	IssuanceID  string `json:"issuanceId"`
	RequestID   string `json:"requestId"`
	Channel     string `json:"channel"`
	MessageID   string `json:"messageId"`
	// Sent is true when this invocation delivered the message; false when the request had been delivered before.
	Sent      bool   `json:"sent"`
	Attempts  int    `json:"attempts"`
	State     string `json:"state"`               // the assertion's state afterwards
	ErrorCode string `json:"errorCode,omitempty"` // the assertion's errorCode afterwards
}

// Resend sends a new message for the assertion's published credential, at most once per request id.
//
// A notification_resends row keyed by (assertion, request) is written and row-locked before the message leaves:
// a repeated invocation with the same request finds it SENT and sends nothing, and concurrent invocations wait
// for each other. A failed or interrupted send is retried by repeating the command with the same request, with
// the same message id (the key "<assertion>-resend-<request>"), which a mail system or the Kakao provider
// recognises as the same message. The resend is a new message, so its id differs from the worker's.
//
// When the assertion is ISSUED with an error code (its notification failed), a delivered resend clears the
// code and a v3 assertion becomes RECEIVED: the state it would have had if the worker's notification had
// succeeded. RECEIVED and EXPIRED assertions keep their state.
func (r Resender) Resend(ctx context.Context, assertion, request string) (ResendResult, error) {
	id, err := uuid.Parse(assertion)
	if err != nil {
		return ResendResult{}, errors.New("notification resend: --assertion must be an assertion id")
	}
	request = strings.TrimSpace(request)
	if request == "" {
		return ResendResult{}, errors.New("notification resend: --request is required (e.g. the support ticket id)")
	}
	if len(request) > MaxResendRequestLen {
		return ResendResult{}, fmt.Errorf("notification resend: --request must be at most %d characters", MaxResendRequestLen)
	}
	row, err := r.DB.GetPipelineAssertion(ctx, id)
	if db.IsNotFound(err) {
		return ResendResult{}, fmt.Errorf("notification resend: no assertion %s", id)
	}
	if err != nil {
		return ResendResult{}, fmt.Errorf("load assertion: %w", err)
	}
	as := row.Assertion
	published := []db.AssertionState{db.AssertionIssued, db.AssertionReceived, db.AssertionExpired}
	if !slices.Contains(published, db.AssertionState(as.State)) || as.CredentialKey == nil {
		return ResendResult{}, fmt.Errorf("notification resend: assertion %s is %s without a published credential", id, as.State)
	}
	key := as.ID.String() + "-resend-" + request
	mail := r.Mail
	if mail == nil {
		mail = &Composer{Issuer: issuer.New(r.DB, nil, r.BaseURL), Log: r.Log, DB: r.DB}
	}
	n, err := mail.IssueNotice(ctx, as, row.BadgeName, row.OrgName)
	if err != nil {
		return ResendResult{}, fmt.Errorf("notification resend: wallet offer: %w", err)
	}
	n.AssertionID = key
	messageID := notify.MessageID(key, r.Domain)
	if n.Channel == notify.KakaoTalk {
		messageID = notify.KakaoMessageID(key)
	}
	log := r.Log.With("assertionId", as.ID.String(), "issuanceId", as.IssuanceID.String(), "requestId", request,
		"messageId", messageID)
	out := ResendResult{AssertionID: as.ID.String(), IssuanceID: as.IssuanceID.String(), RequestID: request,
		Channel: as.ReceiveType, MessageID: messageID}
	var sendErr error
	err = r.DB.InTx(ctx, func(q *db.Queries) error {
		if err := q.CreateNotificationResend(ctx, db.CreateNotificationResendParams{AssertionID: as.ID,
			RequestID: request, MessageID: messageID}); err != nil {
			return fmt.Errorf("record resend: %w", err)
		}
		rec, err := q.LockNotificationResend(ctx, db.LockNotificationResendParams{AssertionID: as.ID, RequestID: request})
		if err != nil {
			return fmt.Errorf("lock resend: %w", err)
		}
		out.Attempts = int(rec.Attempts)
		if rec.Status == string(db.NotificationSent) {
			return nil
		}
		sendErr = Deliver(ctx, r.Notifier, r.Outbox, as.Mode, n)
		out.Attempts++
		if sendErr != nil {
			// Kept (the transaction commits) so that inspect shows the failure; the command reports it.
			msg := sendErr.Error()
			return q.MarkNotificationResendFailed(ctx, db.MarkNotificationResendFailedParams{AssertionID: as.ID,
				RequestID: request, LastError: &msg})
		}
		out.Sent = true
		if err := q.MarkNotificationResendSent(ctx, db.MarkNotificationResendSentParams{AssertionID: as.ID, RequestID: request}); err != nil {
			return fmt.Errorf("record resend sent: %w", err)
		}
		_, err = q.ClearNotificationError(ctx, as.ID)
		return err
	})
	if err != nil {
		return ResendResult{}, fmt.Errorf("notification resend: %w", err)
	}
	if sendErr != nil {
		log.WarnContext(ctx, "notification resend failed", "err", sendErr)
		return ResendResult{}, fmt.Errorf("notification resend: send: %w", sendErr)
	}
	cur, err := r.DB.GetAssertionOutcome(ctx, as.ID)
	if err != nil {
		return ResendResult{}, fmt.Errorf("read assertion: %w", err)
	}
	out.State, out.ErrorCode = cur.State, deref(cur.ErrorCode)
	log.InfoContext(ctx, "notification resend", "sent", out.Sent, "state", out.State)
	return out, nil
}
