package api

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/workflows"
)

// Bulk renewal (v3 extension): POST /badges/{badgeId}/renewals renews many assertions of a badge at once, named by
// id or as "every renewable assertion expiring before a date". It is ONE issuance of replacements (issuances.renewal
// set), recorded in one transaction with its credit debit like any issuance, and run by the issuance workflow: one
// workflow (IssueBadge, batches and chunks included), idempotent under the Idempotency-Key of the badge, with the
// progress of an issuance (GET /badges/{badgeId}/renewals/{renewalId}, GET /issuances/{id}). Each replacement is a
// renewal (api/renew.go): same validity for all, computed once at the request.

// renewalsRequest is a validated bulk renewal: exactly one of AssertionIDs and ExpiringBefore.
type renewalsRequest struct {
	AssertionIDs   []uuid.UUID `json:"assertionIds,omitempty"`
	ExpiringBefore string      `json:"expiringBefore,omitempty"` // YYYY-MM-DD, a date in the service time zone
	before         time.Time   // 00:00 of ExpiringBefore in the service time zone
}

// renewalResponse is a bulk renewal: its issuance with the replacements counted by state.
type renewalResponse struct {
	issuanceResponse
	CountsByState map[string]int `json:"countsByState"`
}

func (h *handler) readRenewalsRequest(r *http.Request, body []byte) (renewalsRequest, error) {
	o, err := h.parseBody(r, body)
	if err != nil {
		return renewalsRequest{}, err
	}
	o.only("assertionIds", "expiringBefore")
	var req renewalsRequest
	if ids := o.ids("assertionIds", maxRecipients); ids.Set {
		if len(ids.Val) == 0 {
			o.fail("assertionIds", "must have at least 1 item")
		}
		req.AssertionIDs = ids.Val // in the request's order: problems name assertionIds[i] as sent
	}
	// Longer than a date is refused by the date's reading (COM002), not by a length rule.
	if d := o.text("expiringBefore", textRule{max: 64}); d.Set {
		t, err := parseDate(d.Val, h.loc)
		if fe := dateProblem("expiringBefore", d.Val, err); err != nil && fe.format {
			o.badFormat("expiringBefore", fe.Message)
		} else if err != nil {
			o.fail("expiringBefore", fe.Message)
		} else {
			req.ExpiringBefore, req.before = d.Val, t
		}
	}
	if o.err() == nil && (o.has("assertionIds") == o.has("expiringBefore")) {
		o.fail("assertionIds", "send exactly one of assertionIds and expiringBefore")
	}
	if err := o.err(); err != nil {
		return renewalsRequest{}, err
	}
	return req, nil
}

// createRenewals is POST /public/v3/badges/{badgeId}/renewals.
func (h *handler) createRenewals(w http.ResponseWriter, r *http.Request) error {
	in, err := readKeyedWrite(w, r, "badgeId", maxIssuanceBody)
	if err != nil {
		return err
	}
	badgeID, key, body, sc := in.id, in.key, in.body, in.sc
	v, now := versionOf(r.Context()), h.now()
	req, err := h.readRenewalsRequest(r, body)
	if err != nil {
		return err
	}
	// The hash is of the set, not the order: the same ids in another order are the same request.
	norm := req
	norm.AssertionIDs = slices.Clone(req.AssertionIDs)
	slices.SortFunc(norm.AssertionIDs, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	payload, err := json.Marshal(norm)
	if err != nil {
		return err
	}
	hash := sha256.Sum256(append([]byte(fmt.Sprintf("v%d\nrenewals\n", v)), payload...))
	bodySum := sha256.Sum256(body)
	// A replay is answered from the stored issuance, whatever happened to the originals since.
	prev, found, err := h.issuanceByKey(r.Context(), sc, badgeID.UUID, key)
	if err != nil {
		return err
	}
	if found {
		if err := sameRequest(prev, hash[:]); err != nil {
			return err
		}
		return h.answerRenewals(w, r, v, prev)
	}
	iss, err := h.recordRenewals(r.Context(), sc, v, badgeID.UUID, key, hash[:], bodySum[:], req, now)
	if err != nil {
		return err
	}
	return h.answerRenewals(w, r, v, iss)
}

// recordRenewals is the bulk renewal transaction: badge and validity, the originals locked in id order, a replay
// checked again under the locks (a concurrent identical request waited for them), the checks, then the issuance,
// the debit and the replacements.
func (h *handler) recordRenewals(ctx context.Context, sc scope, v version, badgeID uuid.UUID, key string,
	hash, bodySum []byte, req renewalsRequest, now time.Time) (db.Issuance, error) {
	var out db.Issuance
	fresh := false
	byKey := db.GetIssuanceByKeyParams{OrgID: sc.Org, BadgeID: badgeID, Mode: sc.Mode, IdempotencyKey: key}
	err := h.db.InTx(ctx, func(q *db.Queries) error {
		// The badge is the caller's path parameter: unknown (or another organization's, or deleted) it is not found,
		// as on every badge route. renewalValidity's own message is for a renewal of an assertion whose badge was
		// deleted after it was issued.
		if _, err := q.GetBadge(ctx, db.GetBadgeParams{OrgID: sc.Org, ID: badgeID}); db.IsNotFound(err) {
			return newError(codeBadgeNotFound, "badge %s not found", badgeID)
		} else if err != nil {
			return err
		}
		issuedAt, until, err := h.renewalValidity(ctx, q, sc, badgeID, now)
		if err != nil {
			return err
		}
		originals, err := h.lockRenewals(ctx, q, sc, badgeID, req, now)
		if ae := (*apiError)(nil); err != nil && !errors.As(err, &ae) {
			return err
		}
		if prev, kerr := q.GetIssuanceByKey(ctx, byKey); kerr == nil {
			out = prev
			return sameRequest(prev, hash)
		} else if !db.IsNotFound(kerr) {
			return kerr
		}
		if err != nil {
			return err
		}
		n := len(originals)
		debit := creditDebit(sc.Mode, n)
		created, taken, err := createRenewalIssuance(ctx, q, db.CreateIssuanceParams{ID: uuid.New(), OrgID: sc.Org,
			BadgeID: badgeID, ProgramID: originals[0].ProgramID, ApiVersion: int16(v), Mode: sc.Mode, IdempotencyKey: key,
			RequestHash: hash, IssuedAt: issuedAt, ExpiredAt: until, AssertionCount: int32(n), CreditsDebited: int32(debit),
			WorkflowID: workflows.IssuanceWorkflowID(sc.Mode, sc.Org, badgeID, key), BodySha256: bodySum}, byKey)
		if taken || err != nil {
			out = created
			return err
		}
		debited, err := q.DebitCredits(ctx, db.DebitCreditsParams{ID: sc.Org, Debit: int64(debit), Serials: int64(n),
			Kind: "renewal", IssuanceID: &created.ID, Actor: keyActor(ctx)})
		if db.IsNotFound(err) {
			return newError(codeNoCredits, "the organization has fewer issuance credits than the %d renewals need", n)
		}
		if err != nil {
			return err
		}
		numbers, err := reservedSerials(sc.Org, debited)
		if err != nil {
			return err
		}
		p := db.InsertRenewalsParams{IssuanceID: created.ID, ApiVersion: int16(v), IssuedAt: issuedAt, ExpiredAt: until,
			CreatedAt: now, Ids: make([]uuid.UUID, n), OriginalIds: make([]uuid.UUID, n), Serials: make([]string, n)}
		for i, o := range originals {
			p.Ids[i], p.OriginalIds[i], p.Serials[i] = uuid.New(), o.ID, numbers.at(i)
		}
		if err := q.InsertRenewals(ctx, p); err != nil {
			return fmt.Errorf("insert renewals: %w", err)
		}
		out, fresh = created, true
		return nil
	})
	if err == nil && fresh {
		h.metrics.IssuanceStarted(versionLabel(v.prefix()), sc.Mode)
	}
	return out, err
}

// lockRenewals locks and checks the originals of a bulk renewal. Named ids must all be renewable (COM006 naming
// each one that is not: missing from the badge, in a state that cannot be renewed, or being replaced); a date takes
// every renewable assertion expiring before it, at most maxRecipients, leaving out those being replaced.
func (h *handler) lockRenewals(ctx context.Context, q *db.Queries, sc scope, badgeID uuid.UUID, req renewalsRequest,
	now time.Time) ([]db.Assertion, error) {
	if req.AssertionIDs == nil {
		rows, err := q.LockExpiringBefore(ctx, db.LockExpiringBeforeParams{OrgID: sc.Org, BadgeID: badgeID, Mode: sc.Mode,
			Before: &req.before, Lim: maxRecipients + 1})
		if err != nil {
			return nil, err
		}
		if len(rows) > maxRecipients {
			return nil, fieldsError([]fieldError{{Field: "expiringBefore", Message: fmt.Sprintf(
				"more than %d assertions expire before %s; renew them in parts (an earlier date, or assertionIds)", maxRecipients, req.ExpiringBefore)}})
		}
		pending, err := pendingSet(ctx, q, rows)
		if err != nil {
			return nil, err
		}
		rows = slices.DeleteFunc(rows, func(a db.Assertion) bool { return pending[a.ID] }) // replaced meanwhile
		if len(rows) == 0 {
			return nil, fieldsError([]fieldError{{Field: "expiringBefore", Message: "no renewable assertion of the badge expires before " + req.ExpiringBefore}})
		}
		return rows, nil
	}
	rows, err := q.LockRenewalCandidates(ctx, db.LockRenewalCandidatesParams{OrgID: sc.Org, BadgeID: badgeID, Mode: sc.Mode, Ids: req.AssertionIDs})
	if err != nil {
		return nil, err
	}
	pending, err := pendingSet(ctx, q, rows)
	if err != nil {
		return nil, err
	}
	byID := make(map[uuid.UUID]db.Assertion, len(rows))
	for _, a := range rows {
		byID[a.ID] = a
	}
	var problems []fieldError
	for i, id := range req.AssertionIDs {
		field := fmt.Sprintf("assertionIds[%d]", i)
		a, ok := byID[id]
		switch {
		case !ok:
			problems = append(problems, fieldError{Field: field, Message: "assertion " + id.String() + " of this badge not found"})
		case renewable(a, now) != "":
			problems = append(problems, fieldError{Field: field, Message: renewable(a, now)})
		case pending[id]:
			problems = append(problems, fieldError{Field: field, Message: "assertion " + id.String() + " is being reissued or renewed"})
		}
	}
	if len(problems) > 0 {
		return nil, fieldsError(problems)
	}
	return rows, nil
}

// pendingSet is the originals among rows whose replacement is still in the pipeline (read after the locks).
func pendingSet(ctx context.Context, q *db.Queries, rows []db.Assertion) (map[uuid.UUID]bool, error) {
	ids := make([]uuid.UUID, len(rows))
	for i, a := range rows {
		ids[i] = a.ID
	}
	got, err := q.PendingReplacementsOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]bool, len(got))
	for _, id := range got {
		out[id] = true
	}
	return out, nil
}

// answerRenewals starts the renewal's issuance unless its start is recorded, and answers it.
func (h *handler) answerRenewals(w http.ResponseWriter, r *http.Request, v version, iss db.Issuance) error {
	if !iss.Renewal {
		// sameRequest matched a renewals hash, which only a bulk renewal's issuance holds.
		return fmt.Errorf("issuance %s answered as a renewal is not one", iss.ID)
	}
	if err := h.startIssuance(r, iss); err != nil {
		return err
	}
	return h.writeRenewal(w, r, v, iss)
}

// createRenewalIssuance writes the issuance of a renewal, marked as one. When the idempotency key was taken
// meanwhile by another request of the badge (a retry of this one waits for the lock), taken is true and the issuance
// is that request's; err then says whether it was the same request (sameRequest).
func createRenewalIssuance(ctx context.Context, q *db.Queries, p db.CreateIssuanceParams,
	byKey db.GetIssuanceByKeyParams) (iss db.Issuance, taken bool, err error) {
	created, err := q.CreateIssuance(ctx, p)
	if db.IsNotFound(err) {
		prev, err := q.GetIssuanceByKey(ctx, byKey)
		if err != nil {
			return db.Issuance{}, false, err
		}
		return prev, true, sameRequest(prev, p.RequestHash)
	}
	if err != nil {
		return db.Issuance{}, false, err
	}
	if err := q.MarkIssuanceRenewal(ctx, created.ID); err != nil {
		return db.Issuance{}, false, err
	}
	created.Renewal = true
	return created, false, nil
}

func (h *handler) writeRenewal(w http.ResponseWriter, r *http.Request, v version, iss db.Issuance) error {
	rows, err := h.db.CountIssuanceOutcomes(r.Context(), iss.ID)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, c := range rows {
		counts[c.State] += int(c.N)
	}
	h.ok(w, renewalResponse{issuanceResponse: h.toIssuanceResponse(v, iss), CountsByState: counts})
	return nil
}

// getRenewal is GET /public/v3/badges/{badgeId}/renewals/{renewalId}: a renewal's progress. The id is its
// issuance's; an issuance that is not a renewal of this badge is ISS001.
func (h *handler) getRenewal(w http.ResponseWriter, r *http.Request) error {
	badgeID, id, sc, err := scopedPair(r, "badgeId", "renewalId")
	if err != nil {
		return err
	}
	iss, err := h.db.GetIssuance(r.Context(), db.GetIssuanceParams{OrgID: sc.Org, ID: id.UUID, Mode: sc.Mode})
	if db.IsNotFound(err) || (err == nil && (iss.BadgeID != badgeID.UUID || !iss.Renewal)) {
		return newError(codeIssuanceNotFound, "renewal %s of badge %s not found", id, badgeID)
	}
	if err != nil {
		return err
	}
	return h.writeRenewal(w, r, versionOf(r.Context()), iss)
}
