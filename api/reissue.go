package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/workflows"
)

// maxReissueBody bounds a reissue request: one optional short field.
const maxReissueBody = 64 << 10

// reissueRequest is a validated POST /assertions/{id}/reissue. The body is optional: empty means {}.
type reissueRequest struct {
	// RecipientName corrects the name the replacement carries (nil: the original's). The identity (email, phone,
	// sourcedId) and channel are always the original's: a reissue replaces a credential, never its recipient.
	RecipientName *string `json:"recipientName"`
	raw           []byte  // the body as sent ({} when empty), for v2's idempotency
}

// reissueResponse is an issuance, as POST /issuances answers it, plus the replacement assertion.
type reissueResponse struct {
	issuanceResponse
	AssertionID string `json:"assertionId"`
}

// reissueAssertion replaces an ISSUED or RECEIVED assertion with a fresh credential for the same recipient. It
// creates an issuance of one recipient (the replacement, reissued_from = the original) in ONE transaction with its
// credit debit, and starts it like any issuance: the same workflow, pipeline and idempotency rules. The original
// turns REISSUED, its status bit set, only when the replacement is issued (activities.FinishAssertions); a failed
// replacement leaves it as it was.
func (h *handler) reissueAssertion(w http.ResponseWriter, r *http.Request) error {
	in, err := readKeyedWrite(w, r, "assertionId", maxReissueBody)
	if err != nil {
		return err
	}
	id, key, body, sc := in.id, in.key, in.body, in.sc
	v, now := versionOf(r.Context()), h.now()
	orig, err := h.findAssertion(r.Context(), sc, id.UUID) // a test key reissues its test assertions only
	if err != nil {
		return err
	}
	req, err := h.readReissueRequest(r, body)
	if err != nil {
		return err
	}
	hash, err := req.requestHash(v, id.UUID)
	if err != nil {
		return err
	}
	bodySum := sha256.Sum256(body)
	iss, err := h.recordReissue(r.Context(), sc, v, orig.Assertion, key, hash, bodySum[:], req, now)
	if err != nil {
		return err
	}
	return h.answerReissue(w, r, v, iss)
}

func (h *handler) readReissueRequest(r *http.Request, body []byte) (reissueRequest, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	o, err := h.parseBody(r, body)
	if err != nil {
		return reissueRequest{}, err
	}
	o.only("recipientName")
	var req reissueRequest
	if n := o.text("recipientName", textRule{nullable: true, max: maxRecipientName}); n.Set && !n.Null {
		req.RecipientName = &n.Val
	}
	if err := o.err(); err != nil {
		return reissueRequest{}, err
	}
	req.raw = o.body
	return req, nil
}

// requestHash follows the issuance rules (issuanceRequest.requestHash): v2 the body as sent in canonical JSON, v3
// the normalized request. The operation and the original's id are part of it, so a key that named an issuance of
// the badge, or the reissue of another assertion, is a different request (ISS057).
func (req reissueRequest) requestHash(v version, original uuid.UUID) ([]byte, error) {
	var payload []byte
	var err error
	if v == v2 {
		payload, err = canonicalJSON(req.raw)
	} else {
		payload, err = json.Marshal(req)
	}
	if err != nil {
		return nil, fmt.Errorf("hash reissue request: %w", err)
	}
	sum := sha256.Sum256(append([]byte(fmt.Sprintf("v%d\nreissue %s\n", v, original)), payload...))
	return sum[:], nil
}

// recordReissue is the reissue transaction. The original is locked first, so two reissues of it (and a cancel)
// take turns; under the lock a replay is answered before any state check, so a retried request gets its first
// answer even after the original turned REISSUED.
func (h *handler) recordReissue(ctx context.Context, sc scope, v version, orig db.Assertion, key string,
	hash, bodySum []byte, req reissueRequest, now time.Time) (db.Issuance, error) {
	var out db.Issuance
	fresh := false
	err := h.db.InTx(ctx, func(q *db.Queries) error {
		cur, err := q.LockReissueOriginal(ctx, db.LockReissueOriginalParams{OrgID: sc.Org, ID: orig.ID, Mode: sc.Mode})
		if err != nil {
			return err
		}
		prev, err := q.GetIssuanceByKey(ctx, db.GetIssuanceByKeyParams{OrgID: sc.Org, BadgeID: cur.BadgeID, Mode: sc.Mode, IdempotencyKey: key})
		if err == nil {
			out = prev
			return sameRequest(prev, hash)
		}
		if !db.IsNotFound(err) {
			return err
		}
		if err := checkReissuable(ctx, q, cur, now); err != nil {
			return err
		}
		if _, err := q.GetBadge(ctx, db.GetBadgeParams{OrgID: sc.Org, ID: cur.BadgeID}); db.IsNotFound(err) {
			return newError(codeBadgeNotFound, "badge %s of assertion %s was deleted; a deleted badge is not reissued", cur.BadgeID, cur.ID)
		} else if err != nil {
			return err
		}
		// Credits: a reissue signs, anchors and delivers a new credential, the work a credit pays for, so it
		// consumes one like an issuance recipient (refunded if the replacement fails); a test reissue, none.
		debit := creditDebit(sc.Mode, 1)
		created, err := q.CreateIssuance(ctx, db.CreateIssuanceParams{ID: uuid.New(), OrgID: sc.Org, BadgeID: cur.BadgeID,
			ProgramID: cur.ProgramID, ApiVersion: int16(v), Mode: sc.Mode, IdempotencyKey: key, RequestHash: hash,
			IssuedAt: cur.IssuedAt, ExpiredAt: cur.ExpiredAt, AssertionCount: 1, CreditsDebited: int32(debit),
			WorkflowID: workflows.IssuanceWorkflowID(sc.Mode, sc.Org, cur.BadgeID, key), BodySha256: bodySum})
		if db.IsNotFound(err) {
			// The key was taken meanwhile by a request of another original or an issuance of the badge (a retry
			// of this very request would have waited for the original's lock and found it above).
			prev, err := q.GetIssuanceByKey(ctx, db.GetIssuanceByKeyParams{OrgID: sc.Org, BadgeID: cur.BadgeID, Mode: sc.Mode, IdempotencyKey: key})
			if err != nil {
				return err
			}
			out = prev
			return sameRequest(prev, hash)
		}
		if err != nil {
			return err
		}
		debited, err := q.DebitCredits(ctx, db.DebitCreditsParams{ID: sc.Org, Debit: int64(debit), Serials: 1,
			Kind: "reissue", IssuanceID: &created.ID, Actor: keyActor(ctx)})
		if db.IsNotFound(err) {
			return newError(codeNoCredits, "a reissue needs 1 issuance credit and the organization has none")
		}
		if err != nil {
			return err
		}
		numbers, err := reservedSerials(sc.Org, debited)
		if err != nil {
			return err
		}
		name := cur.RecipientName
		if req.RecipientName != nil {
			name = *req.RecipientName
		}
		// The replacement keeps the original's issuedAt and expiredAt: it replaces the same award, and a reissue
		// never extends a validity.
		if err := q.InsertReplacement(ctx, db.InsertReplacementParams{ID: uuid.New(), IssuanceID: created.ID,
			ApiVersion: int16(v), SerialNumber: numbers.at(0), RecipientName: name, CreatedAt: now,
			OriginalID: cur.ID}); err != nil {
			return fmt.Errorf("insert replacement: %w", err)
		}
		out, fresh = created, true
		return nil
	})
	if err == nil && fresh {
		h.metrics.IssuanceStarted(versionLabel(v.prefix()), sc.Mode)
	}
	return out, err
}

// checkReissuable refuses (AST022) an original that is not ISSUED or RECEIVED, expiry read as reads show it, and
// one whose replacement is still in the pipeline: one reissue at a time, under another key too.
func checkReissuable(ctx context.Context, q *db.Queries, a db.Assertion, now time.Time) error {
	if state := effectiveState(a.State, a.ExpiredAt, now); state != db.AssertionIssued && state != db.AssertionReceived {
		return newError(codeCancelState, "assertion %s is %s; only ISSUED or RECEIVED assertions can be reissued", a.ID, state)
	}
	return refusePending(ctx, q, a.ID, "reissued again")
}

// refusePending is AST022 while a replacement of the assertion is in the pipeline.
func refusePending(ctx context.Context, q *db.Queries, id uuid.UUID, what string) error {
	pending, err := q.GetPendingReplacement(ctx, &id)
	if db.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return newError(codeCancelState, "assertion %s is being reissued (replacement %s, issuance %s); it can be %s once that issuance completes",
		id, pending.ID, pending.IssuanceID, what)
}

// answerReissue starts the issuance like any other (answerIssuance) and answers it with the replacement's id.
func (h *handler) answerReissue(w http.ResponseWriter, r *http.Request, v version, iss db.Issuance) error {
	if err := h.startIssuance(r, iss); err != nil {
		return err
	}
	a, err := h.db.GetIssuanceAssertion(r.Context(), iss.ID)
	if err != nil {
		return err
	}
	if a.ReissuedFrom == nil {
		// sameRequest matched a reissue hash, which only a reissue's issuance holds: this cannot be an issuance.
		return fmt.Errorf("issuance %s answered as a reissue has no replacement", iss.ID)
	}
	h.ok(w, reissueResponse{issuanceResponse: h.toIssuanceResponse(v, iss), AssertionID: a.ID.String()})
	return nil
}
