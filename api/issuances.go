package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/expiry"
	rcpt "github.com/badged/badged/internal/recipient"
	"github.com/badged/badged/internal/serial"
	"github.com/badged/badged/workflows"
)

// IssuanceStarter starts the workflow of a committed issuance, or finds it when it already runs. The API calls it
// for every accepted request whose issuance has no recorded start (issuances.workflow_started_at), replays
// included, so a crash between the commit and the start heals on the client's retry; it must therefore be
// idempotent.
type IssuanceStarter interface {
	StartIssuance(ctx context.Context, iss db.Issuance) error
}

type issuanceResponse struct {
	ID               string `json:"id"`
	BadgeID          string `json:"badgeId"`
	ProgramID        string `json:"programId"`
	ProcessingStatus string `json:"processingStatus"`
	AssertionCount   int32  `json:"assertionCount"`
	CreatedAt        string `json:"createdAt"`
	UpdatedAt        string `json:"updatedAt"`
}

func (h *handler) toIssuanceResponse(v version, i db.Issuance) issuanceResponse {
	return issuanceResponse{ID: i.ID.String(), BadgeID: i.BadgeID.String(), ProgramID: i.ProgramID.String(),
		ProcessingStatus: i.ProcessingStatus, AssertionCount: i.AssertionCount,
		CreatedAt: v.formatTime(i.CreatedAt, h.loc), UpdatedAt: v.formatTime(i.UpdatedAt, h.loc)}
}

// createIssuance validates and normalizes the request, then in ONE transaction records the issuance, its
// assertions and the credit debit, and finally starts the workflow. A replay returns the stored issuance; one with
// the very bytes of the recorded request is answered before the body is decoded.
func (h *handler) createIssuance(w http.ResponseWriter, r *http.Request) error {
	badgeID, err := pathID(r, "badgeId")
	if err != nil {
		return err
	}
	dryRun, err := queryBool(r.URL.Query(), "dryRun")
	if err != nil {
		return err
	}
	key := r.Header.Get(headerIdempotency)
	keyErr := checkIdempotencyKey(key)
	if keyErr != nil && !dryRun {
		return keyErr
	}
	body, err := readIssuanceBody(w, r)
	if err != nil {
		return err
	}
	sc, err := scopeOf(r.Context())
	if err != nil {
		return err
	}
	v, now := versionOf(r.Context()), h.now()
	if dryRun {
		return h.dryRunRequest(w, r, sc, badgeID.UUID, key, keyErr, body, now)
	}
	bodySum := sha256.Sum256(body)
	prev, found, err := h.issuanceByKey(r.Context(), sc, badgeID.UUID, key)
	if err != nil {
		return err
	}
	if found && prev.ApiVersion == int16(v) && subtle.ConstantTimeCompare(prev.BodySha256, bodySum[:]) == 1 {
		return h.answerIssuance(w, r, v, prev) // the very bytes of the recorded request (issuances.body_sha256)
	}
	o, err := h.parseBody(r, body)
	if err != nil {
		return err
	}
	req := readIssuanceRequest(o, v)
	if err := o.err(); err != nil {
		return err
	}
	req.raw = o.body
	if req.IssuedAt, err = readIssuedAt(o, v, now); err != nil {
		return err
	}
	hash, err := req.requestHash(v)
	if err != nil {
		return err
	}
	if found {
		// A replay is answered from the stored issuance, even if the badge changed since.
		if err := sameRequest(prev, hash); err != nil {
			return err
		}
		return h.answerIssuance(w, r, v, prev)
	}
	iss, err := h.recordIssuance(r.Context(), sc, v, badgeID.UUID, key, hash, bodySum[:], req, now)
	if err != nil {
		return err
	}
	return h.answerIssuance(w, r, v, iss)
}

// issuanceByKey reads the issuance of (badge, key) in the key's mode, if any. It is the one read of a replay; a new
// key's transaction does not read again, as CreateIssuance answers a concurrent winner (ON CONFLICT DO NOTHING).
func (h *handler) issuanceByKey(ctx context.Context, sc scope, badgeID uuid.UUID, key string) (db.Issuance, bool, error) {
	prev, err := h.db.GetIssuanceByKey(ctx, db.GetIssuanceByKeyParams{OrgID: sc.Org, BadgeID: badgeID, Mode: sc.Mode, IdempotencyKey: key})
	if db.IsNotFound(err) {
		return prev, false, nil
	}
	return prev, err == nil, err
}

// answerIssuance starts the workflow of an accepted issuance unless its start is recorded, and answers it.
func (h *handler) answerIssuance(w http.ResponseWriter, r *http.Request, v version, iss db.Issuance) error {
	if err := h.startIssuance(r, iss); err != nil {
		return err
	}
	h.ok(w, h.toIssuanceResponse(v, iss))
	return nil
}

// startIssuance starts the workflow of an accepted issuance (or reissue) unless its start is recorded.
func (h *handler) startIssuance(r *http.Request, iss db.Issuance) error {
	setLogAttrs(r.Context(), "issuanceId", iss.ID.String(), "workflowId", iss.WorkflowID)
	if iss.ProcessingStatus == string(db.IssuanceProcessing) && iss.WorkflowStartedAt == nil {
		if err := h.starter.StartIssuance(r.Context(), iss); err != nil {
			// The issuance is committed; the client's retry with the same key starts the workflow.
			return fmt.Errorf("start issuance workflow %s: %w", iss.WorkflowID, err)
		}
		// Replays answer from the row from now on: a start call to a busy Temporal server was most of a replay's
		// time (p99 319 ms during a 1,000-recipient issuance). Failing to record it only costs a later replay that
		// call, so the answer does not wait on it failing.
		if err := h.db.MarkWorkflowStarted(r.Context(), iss.ID); err != nil {
			h.log.WarnContext(r.Context(), "record workflow start", "issuanceId", iss.ID, "err", err)
		}
	}
	return nil
}

// recordIssuance runs the transaction of step 1 of DESIGN.md "Issuance, step by step".
func (h *handler) recordIssuance(ctx context.Context, sc scope, v version, badgeID uuid.UUID, key string,
	hash, bodySum []byte, req issuanceRequest, now time.Time) (db.Issuance, error) {
	var out db.Issuance
	fresh := false // a new row, not a replay: counted once the transaction commits
	err := h.db.InTx(ctx, func(q *db.Queries) error {
		// The caller found no issuance under key; one committed since is caught by CreateIssuance below.
		plan, problems, err := h.checkIssuance(ctx, q, sc, v, badgeID, req, now)
		if err != nil {
			return err
		}
		if len(problems) > 0 {
			return problems[0] // in the order of checkIssuance: the real request fails fast
		}
		issuedAt, expiredAt := plan.issuedAt, plan.expiredAt
		n := len(req.Recipients)
		debit := creditDebit(sc.Mode, n)
		created, err := q.CreateIssuance(ctx, db.CreateIssuanceParams{ID: uuid.New(), OrgID: sc.Org, BadgeID: badgeID,
			ProgramID: req.ProgramID, ApiVersion: int16(v), Mode: sc.Mode, IdempotencyKey: key, RequestHash: hash,
			IssuedAt: issuedAt, ExpiredAt: expiredAt, AssertionCount: int32(n), CreditsDebited: int32(debit),
			WorkflowID: workflows.IssuanceWorkflowID(sc.Mode, sc.Org, badgeID, key), BodySha256: bodySum})
		if db.IsNotFound(err) {
			// A concurrent request with the same key committed first: answer as its replay.
			prev, err := q.GetIssuanceByKey(ctx, db.GetIssuanceByKeyParams{OrgID: sc.Org, BadgeID: badgeID, Mode: sc.Mode, IdempotencyKey: key})
			if err != nil {
				return err
			}
			out = prev
			return sameRequest(prev, hash)
		}
		if err != nil {
			return err
		}
		debited, err := q.DebitCredits(ctx, db.DebitCreditsParams{ID: sc.Org, Debit: int64(debit), Serials: int64(n),
			Kind: "issuance", IssuanceID: &created.ID, Actor: keyActor(ctx)})
		if db.IsNotFound(err) {
			return newError(codeNoCredits, "the organization has fewer issuance credits than the %d recipients need", n)
		}
		if err != nil {
			return err
		}
		if err := writeRecipients(ctx, q, created, req, debited, now); err != nil {
			return err
		}
		out, fresh = created, true
		return nil
	})
	if err == nil && fresh {
		h.metrics.IssuanceStarted(versionLabel(v.prefix()), sc.Mode)
	}
	return out, err
}

// keyActor names the API key of the request in the credit ledger (db credit_ledger.actor).
func keyActor(ctx context.Context) *string {
	s := "key " + principalOf(ctx).KeyID.String()
	return &s
}

// creditDebit is what an issuance of n recipients takes from the balance: one credit each, none for test keys
// (test issuances run the pipeline without credits).
func creditDebit(mode string, n int) int {
	if mode == apikey.ModeTest {
		return 0
	}
	return n
}

// issuancePlan is what the checks against stored state fix for a new issuance.
type issuancePlan struct {
	issuedAt  time.Time
	expiredAt *time.Time
}

// checkIssuance runs the checks of the issuance transaction against stored state, in the order a real request
// answers them: badge (BDG001), its FIXED policy (BDG064), program (PRG001, the link COM006), expiry (ISS061). A
// real request answers the first problem; a dry run reports them all. err is a missing badge (the path names no
// resource, so neither goes on) or a database failure. A test issuance's expiry is bounded (expiry.Test).
func (h *handler) checkIssuance(ctx context.Context, q *db.Queries, sc scope, v version, badgeID uuid.UUID,
	req issuanceRequest, now time.Time) (plan issuancePlan, problems []*apiError, err error) {
	badge, err := q.GetBadge(ctx, db.GetBadgeParams{OrgID: sc.Org, ID: badgeID})
	if db.IsNotFound(err) {
		return plan, nil, newError(codeBadgeNotFound, "badge %s not found", badgeID)
	}
	if err != nil {
		return plan, nil, err
	}
	if badge.ExpirationKind != nil && *badge.ExpirationKind == expiryFixed {
		problems = append(problems, newError(codeFixedExpiry,
			"badge %s has a FIXED expiration policy; issue with a badge without a policy or with relative months", badgeID))
	}
	if req.ProgramID == uuid.Nil {
		// only a dry run gets here without a programId (its shape problem is reported already)
	} else if err := h.checkIssuanceProgram(ctx, q, sc.Org, badgeID, req.ProgramID); err != nil {
		var ae *apiError
		if !errors.As(err, &ae) {
			return plan, nil, err
		}
		problems = append(problems, ae)
	}
	plan.issuedAt = now
	if req.IssuedAt != nil {
		plan.issuedAt = *req.IssuedAt
	}
	if badge.ExpirationMonths != nil {
		t := expiry.Relative(plan.issuedAt, int(*badge.ExpirationMonths), h.loc)
		if !t.After(now) {
			problems = append(problems, &apiError{status: statusOf(codeExpiryPast), code: codeExpiryPast,
				msg:    fmt.Sprintf("the expiry computed from issuedAt and the badge policy (%s) is already past", v.formatTime(t, h.loc)),
				fields: []fieldError{{Field: "issuedAt", Message: "with this badge's policy the credential would already be expired"}}})
		}
		plan.expiredAt = &t
	}
	if !sc.live() {
		plan.expiredAt = expiry.Test(plan.expiredAt, now)
	}
	return plan, problems, nil
}

// sameRequest decides a replay: the same hash is the same request, anything else is ISS057.
func sameRequest(prev db.Issuance, hash []byte) error {
	if string(prev.RequestHash) != string(hash) {
		return newError(codeIdemConflict, "the Idempotency-Key was already used for a different request; retry with the same request or use a new key")
	}
	return nil
}

func (h *handler) checkIssuanceProgram(ctx context.Context, q *db.Queries, org, badge, program uuid.UUID) error {
	if _, err := q.GetProgram(ctx, db.GetProgramParams{OrgID: org, ID: program}); db.IsNotFound(err) {
		return newError(codeProgramNotFound, "program %s not found", program)
	} else if err != nil {
		return err
	}
	links, err := badgeIDsOf(ctx, q, org, program)
	if err != nil {
		return err
	}
	for _, b := range links[program] {
		if b == badge {
			return nil
		}
	}
	return fieldsError([]fieldError{{Field: "programId", Message: "program " + program.String() + " is not linked to badge " + badge.String()}})
}

// writeRecipients records the recipients of a new issuance: an assertion row each, or, above
// rcpt.StageAbove, staged slices whose assertions the batches write (internal/recipient/stage.go): 100,000
// assertion rows with their indexes take Postgres tens of seconds, 200 slices a fraction of one.
func writeRecipients(ctx context.Context, q *db.Queries, iss db.Issuance, req issuanceRequest, debited db.DebitCreditsRow, now time.Time) error {
	// Staged slices carry no evidence (rcpt.Staged): an issuance with evidence writes its rows here.
	if len(req.Recipients) <= rcpt.StageAbove || slices.ContainsFunc(req.Recipients, func(r recipient) bool { return len(r.Evidence) > 0 }) {
		numbers, err := reservedSerials(iss.OrgID, debited)
		if err != nil {
			return err
		}
		if _, err := q.InsertAssertions(ctx, assertionRows(iss, req, numbers, now)); err != nil {
			return fmt.Errorf("insert assertions: %w", err)
		}
		return nil
	}
	staged := make([]rcpt.Staged, len(req.Recipients))
	for i, r := range req.Recipients {
		staged[i] = rcpt.Staged{Name: r.Name, Email: r.Email, PhoneNumber: r.PhoneNumber, SourcedID: r.SourcedID,
			ReceiveType: r.ReceiveType}
	}
	// The counters are reserved now; the serials are made from them when the slices are written (activities.LoadBatch).
	parts, err := rcpt.Slices(iss.ID, debited.FirstSerial, staged)
	if err != nil {
		return err
	}
	if _, err := q.InsertRecipientSlices(ctx, parts); err != nil {
		return fmt.Errorf("stage recipients: %w", err)
	}
	return nil
}

// serials are the serial numbers of the counters a credit debit reserved (db.DebitCreditsRow), made with the
// organization's key (internal/serial): at(i) is the i-th one's. The staged recipients of a large issuance get theirs
// the same way from the same counters (activities.LoadBatch).
type serials struct {
	first int64
	n     *serial.Numberer
}

func reservedSerials(org uuid.UUID, debited db.DebitCreditsRow) (serials, error) {
	n, err := serial.New(org, debited.SerialKey)
	if err != nil {
		return serials{}, err
	}
	return serials{first: debited.FirstSerial, n: n}, nil
}

func (s serials) at(i int) string { return s.n.Number(s.first + int64(i)) }

func assertionRows(iss db.Issuance, req issuanceRequest, numbers serials, now time.Time) []db.InsertAssertionsParams {
	rows := make([]db.InsertAssertionsParams, len(req.Recipients))
	for i, rc := range req.Recipients {
		rows[i] = db.InsertAssertionsParams{ID: uuid.New(), OrgID: iss.OrgID, IssuanceID: iss.ID, BadgeID: iss.BadgeID,
			ProgramID: iss.ProgramID, Mode: iss.Mode, ApiVersion: iss.ApiVersion, Seq: int32(i),
			SerialNumber: numbers.at(i), RecipientName: rc.Name,
			RecipientEmail: rc.Email, RecipientPhone: rc.PhoneNumber, RecipientSourcedID: rc.SourcedID,
			ReceiveType: rc.ReceiveType, IssuedAt: iss.IssuedAt, ExpiredAt: iss.ExpiredAt, CreatedAt: now,
			Evidence: evidenceJSON(rc.Evidence)}
	}
	return rows
}

func (h *handler) getIssuance(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "issuanceId")
	if err != nil {
		return err
	}
	sc, err := scopeOf(r.Context())
	if err != nil {
		return err
	}
	iss, err := h.db.GetIssuance(r.Context(), db.GetIssuanceParams{OrgID: sc.Org, ID: id.UUID, Mode: sc.Mode})
	if db.IsNotFound(err) {
		err = newError(codeIssuanceNotFound, "issuance %s not found", id)
	}
	if err != nil {
		return err
	}
	h.ok(w, h.toIssuanceResponse(versionOf(r.Context()), iss))
	return nil
}
