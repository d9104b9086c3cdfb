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
	"github.com/badged/badged/internal/notice"
)

// inspectListCap bounds the failure and notification lists of `admin issuance inspect`: an issuance of 10,000
// failed recipients must not print 10,000 rows; the totals say how many there are.
const inspectListCap = 100

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
		out, err = adminInspect(ctx, cfg, d, args[1])
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
	r := notice.Resender{DB: d, Notifier: notifier, Outbox: outbox, Domain: domain, BaseURL: cfg.PublicBaseURL, Log: slog.Default(),
		Mail: &notice.Composer{Issuer: issuer.New(d, nil, cfg.PublicBaseURL), Blob: store, DB: d, Location: cfg.TimeZone,
			FromName: cfg.SMTPFromName, Log: slog.Default()}}
	out, err := r.Resend(ctx, *assertion, *request)
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
	Issuance   issuanceOut `json:"issuance"`
	WorkflowID string      `json:"workflowId"`
	Workflow   workflowOut `json:"workflow"` // what Temporal says of it (admin_inspect.go)
	// TemporalUIURL links the workflow's page; left out when Temporal has no such workflow (the page would be
	// empty, as if the workflow had gone missing rather than never started).
	TemporalUIURL    string            `json:"temporalUiUrl,omitempty"`
	ByState          map[string]int64  `json:"byState"`
	ByStep           map[string]int64  `json:"byStep"` // PROCESSING recipients by last completed step
	Failures         []failureOut      `json:"failures"`
	FailuresTotal    int64             `json:"failuresTotal"`
	UnsentNotes      []notificationOut `json:"unsentNotifications"`
	UnsentNotesTotal int64             `json:"unsentNotificationsTotal"`
	ListCap          int               `json:"listCap"`
}

// inspectIssuance reads the issuance's rows, and asks wf about its workflow (workflowStatus).
func inspectIssuance(ctx context.Context, d *db.DB, cfg config.Config, wf workflowDescriber, id string) (inspectOut, error) {
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
		Workflow:      workflowStatus(ctx, wf, cfg, iss),
		TemporalUIURL: temporalUIURL(cfg, iss.WorkflowID),
		ByState:       map[string]int64{},
		ByStep:        map[string]int64{},
		Failures:      []failureOut{},
		UnsentNotes:   []notificationOut{},
		ListCap:       inspectListCap,
	}
	if out.Workflow.Status == workflowNotFound {
		out.TemporalUIURL = ""
	}
	// The console's issuance page reads the same outcomes (its counters, its recipients query).
	outcomes, err := d.CountRecipientOutcomes(ctx, issID)
	if err != nil {
		return inspectOut{}, fmt.Errorf("count states: %w", err)
	}
	for _, o := range outcomes {
		out.ByState[o.State] += o.N
		if o.ErrorCode != "" {
			out.FailuresTotal += o.N
		}
	}
	steps, err := d.CountIssuanceProcessingSteps(ctx, issID)
	if err != nil {
		return inspectOut{}, fmt.Errorf("count steps: %w", err)
	}
	for _, s := range steps {
		out.ByStep[s.Step] = s.N
	}
	failures, err := d.ListIssuanceRecipients(ctx, db.ListIssuanceRecipientsParams{IssuanceID: issID, AfterSeq: -1,
		WithError: true, Lim: inspectListCap})
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
	activities.StepAnchored, activities.StepBaked, activities.StepPublished, activities.StepNotified, activities.StepDone}

// failedStage returns the step a recipient failed in: the one after its last completed step. An ISSUED recipient
// with an error code failed while notifying (the credential was published).
func failedStage(state, step string) string {
	switch db.AssertionState(state) {
	case db.AssertionIssued, db.AssertionReceived, db.AssertionExpired:
		return activities.StepNotified
	}
	for i, s := range stepOrder[:len(stepOrder)-1] {
		if s == step {
			return stepOrder[i+1]
		}
	}
	return step
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// strOrEmpty returns *s, or "" for nil.
func strOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
