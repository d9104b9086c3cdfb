package api

import (
	"bytes"
	"net/http"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/webhook"
)

// Cancel bodies: {"reason": "..."} or nothing. The reason shows on the public badge page and in the status JSON.
const (
	maxCancelBody   = 8 << 10
	maxCancelReason = 500 // characters
)

// readCancelReason reads the optional body of a cancel. An empty body (today's clients) or a blank or null reason
// means none; anything else goes through the body reader's checks (JSON object, NUL and UTF-8, unknown fields).
func (h *handler) readCancelReason(w http.ResponseWriter, r *http.Request) (*string, error) {
	body, err := readBody(w, r, maxCancelBody)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return nil, err
	}
	o, err := h.parseBody(r, body)
	if err != nil {
		return nil, err
	}
	o.only("reason")
	reason := o.text("reason", textRule{nullable: true, max: maxCancelReason, blankOK: true, multiline: true})
	if err := o.err(); err != nil {
		return nil, err
	}
	if !reason.Set || reason.Null || reason.Val == "" {
		return nil, nil
	}
	return &reason.Val, nil
}

// cancelAssertion revokes an issued assertion: REVOKED, and its status-list bit set so every verifier sees it.
// Cancelling a REVOKED assertion again answers it unchanged (a safe retry; the first reason stays); other states
// are AST022.
func (h *handler) cancelAssertion(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "assertionId")
	if err != nil {
		return err
	}
	reason, err := h.readCancelReason(w, r)
	if err != nil {
		return err
	}
	sc, err := scopeOf(r.Context())
	if err != nil {
		return err
	}
	v := versionOf(r.Context())
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		// Locked like a reissue's original (LockReissueOriginal), so a cancel and a reissue of it take turns.
		cur, err := q.LockReissueOriginal(r.Context(), db.LockReissueOriginalParams{OrgID: sc.Org, ID: id.UUID, Mode: sc.Mode})
		if db.IsNotFound(err) {
			return newError(codeAssertionMissing, "assertion %s not found", id)
		}
		if err != nil {
			return err
		}
		if cur.State == string(db.AssertionRevoked) {
			return nil
		}
		// A replacement in flight would be issued valid after its original was revoked; cancel after it ends.
		if err := refusePending(r.Context(), q, cur.ID, "cancelled"); err != nil {
			return err
		}
		a, err := q.RevokeAssertion(r.Context(), db.RevokeAssertionParams{OrgID: sc.Org, ID: id.UUID, Mode: sc.Mode, Reason: reason})
		if db.IsNotFound(err) {
			state := effectiveState(cur.State, cur.ExpiredAt, h.now())
			return newError(codeCancelState, "assertion %s is %s; only ISSUED or RECEIVED assertions can be cancelled", id, state)
		}
		if err != nil {
			return err
		}
		if a.StatusListID != nil && a.StatusListIndex != nil {
			if err := issuer.Revoke(r.Context(), q, *a.StatusListID, int(*a.StatusListIndex)); err != nil {
				return err
			}
		}
		return webhook.RecordAssertionRevoked(r.Context(), q, a) // in the revoking transaction
	})
	if err != nil {
		return err
	}
	return h.getAssertionAs(w, r, v, sc, id.UUID)
}
