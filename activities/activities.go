// Package activities holds every side effect of an issuance, one method per pipeline step. A step runs on a chunk
// of recipients at once (one round trip reads them, one statement records them) and reports each recipient's
// failure as data, so the workflow retries just those by their failure class. Each step is idempotent: it derives
// object keys, the chain transaction and the message id from the assertion id, and records its result in Postgres
// before the next step starts, so a retry or a worker crash never signs, anchors, uploads or notifies twice.
//
// It holds the steps only: what a step uses but is not one lives in internal/ (the Postgres chain store in
// internal/chain/pgstore, the anchor batching in internal/anchorpool, the messages in internal/notice). It may
// import db, internal/* and the Temporal SDK's activity package; workflows and temporal import it, never the reverse.
package activities

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/retrypolicy"
)

// Anchorer anchors the Merkle root of digests on chain in one transaction under an idempotency key;
// *chain.Anchorer satisfies it.
type Anchorer interface {
	AnchorBatch(ctx context.Context, key string, digests [][32]byte) (chain.Batch, error)
}

// Activities holds the dependencies of every step. Build it once per worker process.
type Activities struct {
	DB       *db.DB
	Blob     blob.Store
	Issuer   *issuer.Service
	Anchor   Anchorer // nil disables anchoring (the step records that it was skipped)
	Notifier *notify.Notifier
	Outbox   notify.Sender // test-mode issuances deliver here instead of to recipients
	// MessageDomain is the right side of Message-IDs (the SMTP sender's domain), recorded before sending.
	MessageDomain string
	// MailFromName is the From display name pattern of mails, "{org}" standing for the organization's name
	// (SMTP_FROM_NAME); empty means notice.DefaultFromName.
	MailFromName string
	Policy       *retrypolicy.Policy
	Location     *time.Location
	Log          *slog.Logger
	Metrics      *metrics.Metrics // nil records nothing
	// AnchorWait is how long a credential waits for others to share its anchor transaction (internal/anchorpool);
	// zero means DefaultAnchorWait.
	AnchorWait time.Duration
	// AnchorMinWait is how long a batch waits at least, even when no other credential is on its way (ANCHOR_MIN_WAIT):
	// zero anchors an issuance as soon as all its chunks are signed; more gathers a trickle of small issuances into
	// fewer transactions at the cost of their latency.
	AnchorMinWait time.Duration
	Webhooks      Webhooks // webhook deliveries (webhook.go)

	images  imageCache  // badge images read by bake (see images.go)
	anchors anchorState // the anchor step's pool and flights (anchorpool.go)
}

// uncodedCode classes an error that carries no errorCode: a failed HTTP call to another system (*url.Error) is
// EXTERNAL_SERVER_ERROR (retried as "remote"); anything else, our database included, is INTERNAL_SERVER_ERROR.
func uncodedCode(err error) errcode.Code {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return errcode.ExternalServerError
	}
	return errcode.InternalServerError
}

// subject is a step's input as the logs name it: its assertion or issuance ids.
type subject interface{ logAttrs() []any }

// logger is the worker's logger with the ids an operator searches by: the step's subject, and the workflow, run
// and attempt it runs in (the Temporal UI link of `badged admin issuance inspect` finds the same workflow).
func (a *Activities) logger(ctx context.Context, in subject) *slog.Logger {
	l := a.Log
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		l = l.With("workflowId", info.WorkflowExecution.ID, "runId", info.WorkflowExecution.RunID, "attempt", info.Attempt)
	}
	if in != nil {
		l = l.With(in.logAttrs()...)
	}
	return l
}

// persistErr marks a failure to record a step's result.
func persistErr(what string, err error) error {
	return errcode.Wrap(errcode.ArtifactPersistenceFailed, what, err)
}
