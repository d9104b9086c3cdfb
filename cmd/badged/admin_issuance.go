package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
)

// inspectListCap bounds the failure and notification lists of `admin issuance inspect`: an issuance of 10,000
// failed recipients must not print 10,000 rows; the totals say how many there are.
const inspectListCap = 100

// maxResendRequestLen keeps the resend message key (assertion id + "-resend-" + request) within what
// notify.MessageID keeps readable (128 characters).
const maxResendRequestLen = 64

// adminIssuance runs `badged admin issuance inspect|redrive|start ID` and prints its result as one JSON object.
func adminIssuance(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) != 2 || (args[0] != "inspect" && args[0] != "redrive" && args[0] != "start") {
		return errUsage
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	var out any
	switch args[0] {
	case "inspect":
		out, err = inspectIssuance(ctx, d, cfg, args[1])
	case "redrive":
		out, err = adminRedrive(ctx, cfg, d, args[1])
	case "start":
		out, err = adminStart(ctx, cfg, d, args[1])
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(out)
}

// adminNotification runs `badged admin notification resend --assertion ID --request ID` and prints its result as
// one JSON object.
func adminNotification(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) < 1 || args[0] != "resend" {
		return errUsage
	}
	fs := flag.NewFlagSet("admin notification resend", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	assertion := fs.String("assertion", "", "assertion id")
	request := fs.String("request", "", "resend request id (e.g. the support ticket); one message per request id")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	notifier, outbox, domain, err := newSenders(cfg)
	if err != nil {
		return err
	}
	store, err := openBlob(ctx, cfg)
	if err != nil {
		return err
	}
	r := resender{DB: d, Notifier: notifier, Outbox: outbox, Domain: domain, BaseURL: cfg.PublicBaseURL, Log: slog.Default(),
		Mail: &activities.Activities{Issuer: issuer.New(d, nil, cfg.PublicBaseURL), Blob: store, Location: cfg.TimeZone,
			MailFromName: cfg.SMTPFromName, Log: slog.Default()}}
	out, err := r.resend(ctx, *assertion, *request)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(out)
}

// issuanceOut is the issuance row as the operator sees it.
type issuanceOut struct {
	ID             string `json:"id"`
	OrgID          string `json:"orgId"`
	BadgeID        string `json:"badgeId"`
	ProgramID      string `json:"programId"`
	APIVersion     int    `json:"apiVersion"`
	Mode           string `json:"mode"`
	Status         string `json:"status"`
	Failure        string `json:"failure,omitempty"`
	AssertionCount int    `json:"assertionCount"`
	CreditsDebited int    `json:"creditsDebited"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

// failureOut is one recipient with an error code. Step is the last completed step; Stage is the step that failed.
type failureOut struct {
	AssertionID   string `json:"assertionId"`
	Seq           int    `json:"seq"`
	State         string `json:"state"`
	Step          string `json:"step"`
	Stage         string `json:"stage"`
	ErrorCode     string `json:"errorCode"`
	RecipientName string `json:"recipientName"`
}

// notificationOut is one notification that was not delivered.
type notificationOut struct {
	AssertionID string `json:"assertionId"`
	Seq         int    `json:"seq"`
	Channel     string `json:"channel"`
	Status      string `json:"status"`
	Attempts    int    `json:"attempts"`
	LastError   string `json:"lastError,omitempty"`
	UpdatedAt   string `json:"updatedAt"`
	Resent      bool   `json:"resent"` // an operator resend has been delivered since
}

// inspectOut is the output of `admin issuance inspect`.
type inspectOut struct {
	Issuance         issuanceOut       `json:"issuance"`
	WorkflowID       string            `json:"workflowId"`
	TemporalUIURL    string            `json:"temporalUiUrl"`
	ByState          map[string]int64  `json:"byState"`
	ByStep           map[string]int64  `json:"byStep"` // PROCESSING recipients by last completed step
	Failures         []failureOut      `json:"failures"`
	FailuresTotal    int64             `json:"failuresTotal"`
	UnsentNotes      []notificationOut `json:"unsentNotifications"`
	UnsentNotesTotal int64             `json:"unsentNotificationsTotal"`
	ListCap          int               `json:"listCap"`
}

func inspectIssuance(ctx context.Context, d *db.DB, cfg config.Config, id string) (inspectOut, error) {
	issID, err := uuid.Parse(id)
	if err != nil {
		return inspectOut{}, errors.New("issuance inspect: ID must be an issuance id")
	}
	iss, err := d.GetIssuanceAnyOrg(ctx, issID)
	if db.IsNotFound(err) {
		return inspectOut{}, fmt.Errorf("issuance inspect: no issuance %s", issID)
	}
	if err != nil {
		return inspectOut{}, fmt.Errorf("load issuance: %w", err)
	}
	out := inspectOut{
		Issuance: issuanceOut{ID: iss.ID.String(), OrgID: iss.OrgID.String(), BadgeID: iss.BadgeID.String(),
			ProgramID: iss.ProgramID.String(), APIVersion: int(iss.ApiVersion), Mode: iss.Mode,
			Status: iss.ProcessingStatus, Failure: strOrEmpty(iss.Failure), AssertionCount: int(iss.AssertionCount),
			CreditsDebited: int(iss.CreditsDebited), CreatedAt: rfc3339(iss.CreatedAt), UpdatedAt: rfc3339(iss.UpdatedAt)},
		WorkflowID:    iss.WorkflowID,
		TemporalUIURL: temporalUIURL(cfg, iss.WorkflowID),
		ByState:       map[string]int64{},
		ByStep:        map[string]int64{},
		Failures:      []failureOut{},
		UnsentNotes:   []notificationOut{},
		ListCap:       inspectListCap,
	}
	states, err := d.CountIssuanceStates(ctx, issID)
	if err != nil {
		return inspectOut{}, fmt.Errorf("count states: %w", err)
	}
	for _, s := range states {
		out.ByState[s.State] = s.N
	}
	steps, err := d.CountIssuanceProcessingSteps(ctx, issID)
	if err != nil {
		return inspectOut{}, fmt.Errorf("count steps: %w", err)
	}
	for _, s := range steps {
		out.ByStep[s.Step] = s.N
	}
	if out.FailuresTotal, err = d.CountIssuanceFailures(ctx, issID); err != nil {
		return inspectOut{}, fmt.Errorf("count failures: %w", err)
	}
	failures, err := d.ListIssuanceFailures(ctx, db.ListIssuanceFailuresParams{IssuanceID: issID, Lim: inspectListCap})
	if err != nil {
		return inspectOut{}, fmt.Errorf("list failures: %w", err)
	}
	for _, f := range failures {
		out.Failures = append(out.Failures, failureOut{AssertionID: f.ID.String(), Seq: int(f.Seq), State: f.State,
			Step: f.Step, Stage: failedStage(f.State, f.Step), ErrorCode: strOrEmpty(f.ErrorCode), RecipientName: f.RecipientName})
	}
	if out.UnsentNotesTotal, err = d.CountIssuanceUnsentNotifications(ctx, issID); err != nil {
		return inspectOut{}, fmt.Errorf("count notifications: %w", err)
	}
	notes, err := d.ListIssuanceUnsentNotifications(ctx, db.ListIssuanceUnsentNotificationsParams{IssuanceID: issID, Lim: inspectListCap})
	if err != nil {
		return inspectOut{}, fmt.Errorf("list notifications: %w", err)
	}
	for _, n := range notes {
		out.UnsentNotes = append(out.UnsentNotes, notificationOut{AssertionID: n.AssertionID.String(), Seq: int(n.Seq),
			Channel: n.Channel, Status: n.Status, Attempts: int(n.Attempts), LastError: strOrEmpty(n.LastError),
			UpdatedAt: rfc3339(n.UpdatedAt), Resent: n.Resent})
	}
	return out, nil
}

// temporalUIURL links the workflow's page in the Temporal UI. Workflow ids contain '/', which PathEscape encodes,
// so the id stays one path segment.
func temporalUIURL(cfg config.Config, workflowID string) string {
	ns := cfg.TemporalNamespace
	if ns == "" {
		ns = "default"
	}
	return strings.TrimRight(cfg.TemporalUIURL, "/") + "/namespaces/" + url.PathEscape(ns) + "/workflows/" +
		url.PathEscape(workflowID)
}

// stepOrder is the pipeline in order; the step column holds the last completed one.
var stepOrder = []string{activities.StepPending, activities.StepChecked, activities.StepSigned,
	activities.StepAnchored, activities.StepBaked, activities.StepUploaded, activities.StepNotified, activities.StepDone}

// failedStage returns the step a recipient failed in: the one after its last completed step. An ISSUED recipient
// with an error code failed while notifying (the credential was published).
func failedStage(state, step string) string {
	if state == "ISSUED" || state == "RECEIVED" || state == "EXPIRED" {
		return activities.StepNotified
	}
	for i, s := range stepOrder[:len(stepOrder)-1] {
		if s == step {
			return stepOrder[i+1]
		}
	}
	return step
}

// resender re-sends the notification of an issued credential on an operator's explicit request.
type resender struct {
	DB       *db.DB
	Notifier *notify.Notifier // live deliveries; nil delivers to Outbox
	Outbox   notify.Sender    // test-mode assertions deliver here, like the worker
	Domain   string           // Message-ID domain
	BaseURL  string           // PUBLIC_BASE_URL
	Log      *slog.Logger
	// Mail builds the message as the worker does; nil builds it without the inline image, in UTC.
	Mail *activities.Activities
}

// resendOut is the output of `admin notification resend`.
type resendOut struct {
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

// resend sends a new message for the assertion's published credential, at most once per request id.
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
func (r resender) resend(ctx context.Context, assertion, request string) (resendOut, error) {
	id, err := uuid.Parse(assertion)
	if err != nil {
		return resendOut{}, errors.New("notification resend: --assertion must be an assertion id")
	}
	request = strings.TrimSpace(request)
	if request == "" {
		return resendOut{}, errors.New("notification resend: --request is required (e.g. the support ticket id)")
	}
	if len(request) > maxResendRequestLen {
		return resendOut{}, fmt.Errorf("notification resend: --request must be at most %d characters", maxResendRequestLen)
	}
	row, err := r.DB.GetPipelineAssertion(ctx, id)
	if db.IsNotFound(err) {
		return resendOut{}, fmt.Errorf("notification resend: no assertion %s", id)
	}
	if err != nil {
		return resendOut{}, fmt.Errorf("load assertion: %w", err)
	}
	as := row.Assertion
	if (as.State != "ISSUED" && as.State != "RECEIVED" && as.State != "EXPIRED") || as.CredentialKey == nil {
		return resendOut{}, fmt.Errorf("notification resend: assertion %s is %s without a published credential", id, as.State)
	}
	key := as.ID.String() + "-resend-" + request
	mb := r.Mail
	if mb == nil {
		mb = &activities.Activities{Issuer: issuer.New(r.DB, nil, r.BaseURL), Log: r.Log, DB: r.DB}
	}
	n, err := activities.BuildNotification(ctx, mb, as, row.BadgeName, row.OrgName)
	if err != nil {
		return resendOut{}, fmt.Errorf("notification resend: wallet offer: %w", err)
	}
	n.AssertionID = key
	messageID := notify.MessageID(key, r.Domain)
	if n.Channel == notify.KakaoTalk {
		messageID = notify.KakaoMessageID(key)
	}
	log := r.Log.With("assertionId", as.ID.String(), "issuanceId", as.IssuanceID.String(), "requestId", request,
		"messageId", messageID)
	out := resendOut{AssertionID: as.ID.String(), IssuanceID: as.IssuanceID.String(), RequestID: request,
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
		if rec.Status == "SENT" {
			return nil
		}
		if as.Mode == "test" || r.Notifier == nil {
			_, sendErr = r.Outbox.Send(ctx, n)
		} else {
			_, sendErr = r.Notifier.Notify(ctx, n)
		}
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
		return resendOut{}, fmt.Errorf("notification resend: %w", err)
	}
	if sendErr != nil {
		log.WarnContext(ctx, "notification resend failed", "err", sendErr)
		return resendOut{}, fmt.Errorf("notification resend: send: %w", sendErr)
	}
	cur, err := r.DB.GetAssertionOutcome(ctx, as.ID)
	if err != nil {
		return resendOut{}, fmt.Errorf("read assertion: %w", err)
	}
	out.State, out.ErrorCode = cur.State, strOrEmpty(cur.ErrorCode)
	log.InfoContext(ctx, "notification resend", "sent", out.Sent, "state", out.State)
	return out, nil
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// strOrEmpty returns *s, or "" for nil.
func strOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
