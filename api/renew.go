package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/expiry"
	"github.com/badged/badged/workflows"
)

// Renewal (v3 extension) replaces a credential with one of a new validity: issued now, expiring as the badge's
// expiry policy says from now. It is a reissue in everything else (api/reissue.go): a replacement assertion in an
// issuance of its own, the same workflow and pipeline, one credit (refunded if it fails), the original turning
// REISSUED with its status bit set once the replacement is issued (activities.replaceOriginals), which then records
// assertion.renewed instead of assertion.reissued. Unlike a reissue, an EXPIRED original can be renewed: that is
// what renewing is for.

// renewalValidity is the validity of a renewal made at now: issued now, expiring per the badge's relative policy
// (none: no expiry); a FIXED policy is BDG064 as for an issuance, a deleted badge BDG001. A test renewal's expiry is
// bounded like any test credential's (expiry.Test).
func (h *handler) renewalValidity(ctx context.Context, q *db.Queries, sc scope, badgeID uuid.UUID, now time.Time) (time.Time, *time.Time, error) {
	badge, err := q.GetBadge(ctx, db.GetBadgeParams{OrgID: sc.Org, ID: badgeID})
	if db.IsNotFound(err) {
		return now, nil, newError(codeBadgeNotFound, "badge %s was deleted; a deleted badge is not renewed", badgeID)
	}
	if err != nil {
		return now, nil, err
	}
	if badge.ExpirationKind != nil && *badge.ExpirationKind == expiryFixed {
		return now, nil, newError(codeFixedExpiry, "badge %s has a FIXED expiration policy; renewal needs relative months", badgeID)
	}
	var until *time.Time
	if badge.ExpirationMonths != nil {
		t := expiry.Relative(now, int(*badge.ExpirationMonths), h.loc)
		until = &t
	}
	if !sc.live() {
		until = expiry.Test(until, now)
	}
	return now, until, nil
}

// renewable says why an assertion cannot be renewed ("" when it can): it must be ISSUED, RECEIVED or EXPIRED (read
// as reads show it).
func renewable(a db.Assertion, now time.Time) string {
	switch state := effectiveState(a.State, a.ExpiredAt, now); state {
	case db.AssertionIssued, db.AssertionReceived, db.AssertionExpired:
		return ""
	default:
		return fmt.Sprintf("assertion %s is %s; only ISSUED, RECEIVED or EXPIRED assertions can be renewed", a.ID, state)
	}
}

// renewAssertion is POST /public/v3/assertions/{id}/renew. The body is optional ({} when sent).
func (h *handler) renewAssertion(w http.ResponseWriter, r *http.Request) error {
	in, err := readKeyedWrite(w, r, "assertionId", maxReissueBody)
	if err != nil {
		return err
	}
	id, key, body, sc := in.id, in.key, in.body, in.sc
	v, now := versionOf(r.Context()), h.now()
	orig, err := h.findAssertion(r.Context(), sc, id.UUID) // a test key renews its test assertions only
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		o, err := h.parseBody(r, body)
		if err != nil {
			return err
		}
		o.only()
		if err := o.err(); err != nil {
			return err
		}
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("v%d\nrenew %s\n", v, id.UUID)))
	bodySum := sha256.Sum256(body)
	iss, err := h.recordRenewal(r.Context(), sc, v, orig.Assertion, key, sum[:], bodySum[:], now)
	if err != nil {
		return err
	}
	return h.answerReissue(w, r, v, iss)
}

// recordRenewal is the renewal transaction, recordReissue's twin: the original locked first (renewals, reissues and
// cancels of it take turns), a replay answered before any state check, then the state and pending checks, the
// issuance, the credit and the replacement with its new validity.
func (h *handler) recordRenewal(ctx context.Context, sc scope, v version, orig db.Assertion, key string,
	hash, bodySum []byte, now time.Time) (db.Issuance, error) {
	var out db.Issuance
	fresh := false
	err := h.db.InTx(ctx, func(q *db.Queries) error {
		cur, err := q.LockReissueOriginal(ctx, db.LockReissueOriginalParams{OrgID: sc.Org, ID: orig.ID, Mode: sc.Mode})
		if err != nil {
			return err
		}
		byKey := db.GetIssuanceByKeyParams{OrgID: sc.Org, BadgeID: cur.BadgeID, Mode: sc.Mode, IdempotencyKey: key}
		prev, err := q.GetIssuanceByKey(ctx, byKey)
		if err == nil {
			out = prev
			return sameRequest(prev, hash)
		}
		if !db.IsNotFound(err) {
			return err
		}
		if why := renewable(cur, now); why != "" {
			return newError(codeCancelState, "%s", why)
		}
		if err := refusePending(ctx, q, cur.ID, "renewed"); err != nil {
			return err
		}
		issuedAt, until, err := h.renewalValidity(ctx, q, sc, cur.BadgeID, now)
		if err != nil {
			return err
		}
		debit := creditDebit(sc.Mode, 1)
		created, taken, err := createRenewalIssuance(ctx, q, db.CreateIssuanceParams{ID: uuid.New(), OrgID: sc.Org,
			BadgeID: cur.BadgeID, ProgramID: cur.ProgramID, ApiVersion: int16(v), Mode: sc.Mode, IdempotencyKey: key,
			RequestHash: hash, IssuedAt: issuedAt, ExpiredAt: until, AssertionCount: 1, CreditsDebited: int32(debit),
			WorkflowID: workflows.IssuanceWorkflowID(sc.Mode, sc.Org, cur.BadgeID, key), BodySha256: bodySum}, byKey)
		if taken || err != nil {
			out = created
			return err
		}
		debited, err := q.DebitCredits(ctx, db.DebitCreditsParams{ID: sc.Org, Debit: int64(debit), Serials: 1,
			Kind: "renewal", IssuanceID: &created.ID, Actor: keyActor(ctx)})
		if db.IsNotFound(err) {
			return newError(codeNoCredits, "a renewal needs 1 issuance credit and the organization has none")
		}
		if err != nil {
			return err
		}
		numbers, err := reservedSerials(sc.Org, debited)
		if err != nil {
			return err
		}
		if err := q.InsertRenewal(ctx, db.InsertRenewalParams{ID: uuid.New(), IssuanceID: created.ID, ApiVersion: int16(v),
			Seq: 0, SerialNumber: numbers.at(0), IssuedAt: issuedAt, ExpiredAt: until, CreatedAt: now,
			OriginalID: cur.ID}); err != nil {
			return fmt.Errorf("insert renewal: %w", err)
		}
		out, fresh = created, true
		return nil
	})
	if err == nil && fresh {
		h.metrics.IssuanceStarted(versionLabel(v.prefix()), sc.Mode)
	}
	return out, err
}
