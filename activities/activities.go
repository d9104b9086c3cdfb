// Package activities holds every side effect of an issuance, one method per pipeline step. Each step is
// idempotent: it derives object keys, the chain transaction and the message id from the assertion id, and records
// its result in Postgres before the next step starts, so a retry or a worker crash never signs, anchors, uploads
// or notifies twice.
package activities

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/chain"
	"github.com/badged/badged/internal/errcode"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/metrics"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/retrypolicy"
)

// Anchorer anchors digests on chain under an idempotency key, one per transaction or many in a Merkle batch;
// *chain.Anchorer satisfies it.
type Anchorer interface {
	Anchor(ctx context.Context, key string, digest [32]byte) (chain.Anchor, error)
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
	Policy        *retrypolicy.Policy
	Location      *time.Location
	Log           *slog.Logger
	Metrics       *metrics.Metrics // nil records nothing

	images imageCache // badge images read by bake (see images.go)
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

// fail turns a step's error into the ApplicationError the workflow sees: its type is the assertion errorCode, and
// the policy file decides whether and when it is retried (NextRetryDelay), so every class's backoff and attempt
// limit live in one table. An error without a code is INTERNAL_SERVER_ERROR.
func (a *Activities) fail(ctx context.Context, step string, in subject, err error) error {
	if err == nil {
		a.observe(ctx, step, metrics.OutcomeSuccess, "")
		return nil
	}
	code := errcode.Of(err)
	if code == errcode.Unknown {
		code = uncodedCode(err)
	}
	attempt := int(activity.GetInfo(ctx).Attempt)
	retry, delay := a.Policy.Decide(code, attempt)
	a.logger(ctx, in).WarnContext(ctx, "step failed", "step", step, "errorCode", code, "class", a.Policy.ClassOf(code),
		"retry", retry, "delay", delay, "err", err)
	outcome := metrics.OutcomeRetry
	if !retry {
		outcome = metrics.OutcomeFailed
	}
	a.observe(ctx, step, outcome, a.Policy.ClassOf(code))
	if !retry {
		return temporal.NewNonRetryableApplicationError(err.Error(), string(code), err)
	}
	return temporal.NewApplicationErrorWithOptions(err.Error(), string(code), temporal.ApplicationErrorOptions{
		NextRetryDelay: delay, Cause: err})
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

// observe records one attempt of step in the metrics: every step wrapper ends in fail, so this is the one place.
// The latency is measured from the attempt's start as Temporal recorded it.
func (a *Activities) observe(ctx context.Context, step, outcome, class string) {
	if a.Metrics == nil || !activity.IsActivity(ctx) {
		return
	}
	info := activity.GetInfo(ctx)
	a.Metrics.ObserveActivity(step, outcome, class, int(info.Attempt), time.Since(info.StartedTime))
}

// persistErr marks a failure to record a step's result.
func persistErr(what string, err error) error {
	return errcode.Wrap(errcode.ArtifactPersistenceFailed, what, err)
}
