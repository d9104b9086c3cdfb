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
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/workflows"
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
	r := resender{DB: d, Notifier: notifier, Outbox: outbox, Domain: domain, BaseURL: cfg.PublicBaseURL, Log: slog.Default()}
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
	n := notify.Notification{AssertionID: key, Channel: notify.Channel(as.ReceiveType), Locale: "ko",
		RecipientName: as.RecipientName, Email: strOrEmpty(as.RecipientEmail), Phone: strOrEmpty(as.RecipientPhone),
		BadgeName: row.BadgeName, IssuerName: row.OrgName,
		BadgeImageURL: strings.TrimRight(r.BaseURL, "/") + "/credentials/" + as.ID.String() + "/image",
		VerifyURL:     issuer.New(r.DB, nil, r.BaseURL).VerifyURL(as.ID)}
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

// adminRedrive prepares the re-drive in the database and starts its workflow on the configured Temporal.
func adminRedrive(ctx context.Context, cfg config.Config, d *db.DB, id string) (redriveOut, error) {
	policy, err := loadPolicy(cfg)
	if err != nil {
		return redriveOut{}, err
	}
	tc, err := dialAdminTemporal(ctx, cfg)
	if err != nil {
		return redriveOut{}, err
	}
	defer tc.Close()
	return redriveIssuance(ctx, d, cfg, policy, temporalRedriveStarter(tc), id)
}

// redriveStarter starts (or finds running) the re-drive workflow with the given id.
type redriveStarter func(ctx context.Context, iss db.Issuance, workflowID string, in workflows.RedriveInput) error

// temporalRedriveStarter starts re-drive workflows on c. A running workflow of the id is reused (USE_EXISTING); a
// closed one is started again only if it failed (its recipients are then still PROCESSING), never after it
// completed.
func temporalRedriveStarter(c client.Client) redriveStarter {
	return func(ctx context.Context, iss db.Issuance, workflowID string, in workflows.RedriveInput) error {
		_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID:                       workflowID,
			TaskQueue:                workflows.TaskQueue,
			WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
			WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
			TypedSearchAttributes: workflows.SearchAttributes(workflows.IssueBadgeInput{IssuanceID: iss.ID,
				OrgID: iss.OrgID, BadgeID: iss.BadgeID, APIVersion: int(iss.ApiVersion), RecipientCount: len(in.AssertionIDs)}),
			Memo: map[string]any{"issuanceId": iss.ID.String(), "orgId": iss.OrgID.String(), "redrive": true},
		}, workflows.RedriveIssuance, in)
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &started) {
			return nil // completed already: its recipients have their outcomes
		}
		if err != nil {
			return fmt.Errorf("start workflow: %w", err)
		}
		return nil
	}
}

// redriveOut is the output of `admin issuance redrive`.
type redriveOut struct {
	IssuanceID    string `json:"issuanceId"`
	Run           int    `json:"run,omitempty"` // 0: nothing to re-drive
	WorkflowID    string `json:"workflowId,omitempty"`
	TemporalUIURL string `json:"temporalUiUrl,omitempty"`
	// Created is true when this invocation reset recipients and debited credits; false when it only (re)started
	// the unfinished run of an earlier invocation, or found nothing to do.
	Created        bool           `json:"created"`
	Started        bool           `json:"started"` // the run's workflow was started or found running
	AssertionIDs   []string       `json:"assertionIds"`
	CreditsDebited int            `json:"creditsDebited"`
	SkippedByCode  map[string]int `json:"skippedByCode"` // failed recipients with a permanent code, not re-driven
	Remaining      int            `json:"remaining"`     // retryable failures left for a later run
}

// redriveIssuance re-drives the FAILED recipients of a finished issuance whose errorCode is of a retryable class
// in the retry policy: in one transaction they go back to PROCESSING at the step they had reached, their live
// credits are debited again (FinishAssertion refunded them; the whole run is refused when credits are short), and
// the run is recorded as issuance_redrive_runs n; then workflow "<issuance workflow id>/redrive-<n>" is started.
//
// Idempotent: while the latest run still has PROCESSING recipients, nothing new is reset or debited and that
// run's workflow is started again (USE_EXISTING finds it running; a failed one is restarted). A run takes at most
// workflows.MaxRedriveRecipients recipients; the next invocation after it finished takes the next ones.
func redriveIssuance(ctx context.Context, d *db.DB, cfg config.Config, policy *retrypolicy.Policy, start redriveStarter,
	id string) (redriveOut, error) {
	issID, err := uuid.Parse(id)
	if err != nil {
		return redriveOut{}, errors.New("issuance redrive: ID must be an issuance id")
	}
	out := redriveOut{IssuanceID: issID.String(), AssertionIDs: []string{}, SkippedByCode: map[string]int{}}
	var iss db.Issuance
	var run *db.IssuanceRedriveRun
	err = d.InTx(ctx, func(q *db.Queries) error {
		iss, err = q.LockIssuance(ctx, issID)
		if db.IsNotFound(err) {
			return fmt.Errorf("no issuance %s", issID)
		}
		if err != nil {
			return fmt.Errorf("lock issuance: %w", err)
		}
		if iss.ProcessingStatus == "PROCESSING" {
			return fmt.Errorf("issuance %s is still processing; re-drive it once its workflow has finished", issID)
		}
		latest, err := q.GetLatestRedrive(ctx, issID)
		if err != nil && !db.IsNotFound(err) {
			return fmt.Errorf("read redrive runs: %w", err)
		}
		if err == nil {
			busy, err := q.CountProcessingOf(ctx, latest.AssertionIds)
			if err != nil {
				return fmt.Errorf("count processing: %w", err)
			}
			if busy > 0 {
				run = &latest
				return nil
			}
		}
		failed, err := q.ListFailedOfIssuance(ctx, issID)
		if err != nil {
			return fmt.Errorf("list failed: %w", err)
		}
		var ids []uuid.UUID
		live := 0
		for _, f := range failed {
			code := errcode.Code(strOrEmpty(f.ErrorCode))
			if !policy.Classes[policy.ClassOf(code)].Retryable {
				out.SkippedByCode[string(code)]++
				continue
			}
			if len(ids) == workflows.MaxRedriveRecipients {
				out.Remaining++
				continue
			}
			ids = append(ids, f.ID)
			if f.Mode == "live" {
				live++
			}
		}
		if len(ids) == 0 {
			return nil
		}
		if live > 0 {
			_, err := q.DebitCredits(ctx, db.DebitCreditsParams{ID: iss.OrgID, Debit: int64(live), Serials: 0})
			if db.IsNotFound(err) {
				return fmt.Errorf("organization %s has fewer than the %d credits the re-drive needs", iss.OrgID, live)
			}
			if err != nil {
				return fmt.Errorf("debit credits: %w", err)
			}
		}
		if _, err := q.ResetForRedrive(ctx, ids); err != nil {
			return fmt.Errorf("reset recipients: %w", err)
		}
		n := int(latest.N) + 1 // latest is the zero value when there is no earlier run
		created, err := q.CreateRedrive(ctx, db.CreateRedriveParams{IssuanceID: issID, N: int32(n),
			WorkflowID: workflows.RedriveWorkflowID(iss.WorkflowID, n), AssertionIds: ids, CreditsDebited: int32(live)})
		if err != nil {
			return fmt.Errorf("record redrive: %w", err)
		}
		run, out.Created = &created, true
		return nil
	})
	if err != nil {
		return redriveOut{}, fmt.Errorf("issuance redrive: %w", err)
	}
	log := slog.Default().With("issuanceId", issID.String(), "issuanceWorkflowId", iss.WorkflowID)
	if run == nil {
		log.InfoContext(ctx, "issuance redrive: nothing to re-drive", "skipped", out.SkippedByCode)
		return out, nil
	}
	out.Run, out.WorkflowID, out.TemporalUIURL = int(run.N), run.WorkflowID, temporalUIURL(cfg, run.WorkflowID)
	out.CreditsDebited = int(run.CreditsDebited)
	for _, a := range run.AssertionIds {
		out.AssertionIDs = append(out.AssertionIDs, a.String())
	}
	log = log.With("workflowId", run.WorkflowID, "run", run.N)
	if err := start(ctx, iss, run.WorkflowID, workflows.RedriveInput{IssuanceID: issID, AssertionIDs: run.AssertionIds}); err != nil {
		log.ErrorContext(ctx, "issuance redrive: start workflow", "err", err)
		return out, fmt.Errorf("issuance redrive: recipients reset (run %d) but the workflow did not start; run the command again: %w", run.N, err)
	}
	out.Started = true
	log.InfoContext(ctx, "issuance redrive started", "recipients", len(run.AssertionIds), "created", out.Created,
		"creditsDebited", out.CreditsDebited)
	return out, nil
}

// strOrEmpty returns *s, or "" for nil.
func strOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
