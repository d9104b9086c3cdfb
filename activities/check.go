package activities

import (
	"context"
	"errors"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/errcode"
	rcpt "github.com/badged/badged/internal/recipient"
)

// lockTimeout bounds the wait for another check of the same recipient identities (ISSUANCE_LOCK_TIMEOUT).
const lockTimeout = "5s"

// CheckRecipients runs the recipient-level checks before signing, under per-identity locks so that two
// issuances of one badge to one person cannot both pass: MISSING_INFO and RECIPIENT_IDENTITY_MISSING for
// incomplete recipients, DUPLICATE_ISSUANCE when the recipient already holds (or is being given) this badge,
// BADGE_IMAGE_MISSING when the badge image cannot be found.
func (a *Activities) CheckRecipients(ctx context.Context, in StepBatch) (StepResult, error) {
	return a.headedForAnchor(ctx, "check", in, a.onChunk(StepPending, a.checkRecipients))
}

func (a *Activities) checkRecipients(ctx context.Context, rows chunk, failed failures) (failures, error) {
	images := map[uuid.UUID]error{} // one look-up per badge image, not per recipient
	var todo []db.Assertion
	for _, row := range rows {
		as := row.Assertion
		if err := recipientComplete(as); err != nil {
			failed[as.ID] = err
			continue
		}
		imgErr, seen := images[row.BadgeImageID]
		if !seen {
			_, _, imgErr = a.badgeImageKey(ctx, row.BadgeImageID)
			images[row.BadgeImageID] = imgErr
		}
		if imgErr != nil {
			failed[as.ID] = imgErr
			continue
		}
		todo = append(todo, as)
	}
	if len(todo) == 0 {
		return failed, nil
	}
	dups, err := a.checkDuplicates(ctx, todo)
	if err != nil {
		err = lockError(err)
		for _, as := range todo {
			failed[as.ID] = err
		}
		return failed, nil
	}
	for id, err := range dups {
		failed[id] = err
	}
	return failed, nil
}

// recipientComplete refuses a recipient without an identity, a name, or the contact its channel needs
// (internal/recipient, shared with the API's dry run). A reissue's replacement copies its original's recipient, so
// there the same gap means the recipient record the reissue names is gone (erased since the original was issued):
// RECIPIENT_NOT_FOUND.
func recipientComplete(as db.Assertion) error {
	err := rcpt.Incomplete(as.RecipientName, as.ReceiveType, as.RecipientEmail, as.RecipientPhone, as.RecipientSourcedID)
	switch {
	case err == nil: // a nil *errcode.Error must not become a non-nil error
		return nil
	case as.ReissuedFrom != nil:
		return errcode.Wrap(errcode.RecipientNotFound, "the recipient record of the original assertion "+as.ReissuedFrom.String()+" is gone", err)
	}
	return err
}

// checkDuplicates takes the identity locks of the chunk, finds the recipients another assertion wins over
// (DUPLICATE_ISSUANCE) and records the others as CHECKED, in one transaction: nothing of it holds if it fails.
func (a *Activities) checkDuplicates(ctx context.Context, todo []db.Assertion) (failures, error) {
	keys := make([]string, 0, len(todo))
	ids := make([]uuid.UUID, len(todo))
	for i, as := range todo {
		keys = append(keys, identityLock(as))
		ids[i] = as.ID
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	dups := failures{}
	err := a.DB.InTx(ctx, func(q *db.Queries) error {
		if err := q.SetLockTimeout(ctx, lockTimeout); err != nil {
			return err
		}
		if err := q.LockRecipients(ctx, keys); err != nil {
			return err
		}
		conflicts, err := q.FindConflicts(ctx, ids)
		if err != nil {
			return err
		}
		for _, c := range conflicts {
			dups[c.ID] = errcode.New(errcode.DuplicateIssuance,
				"the recipient already holds or is being issued this badge (assertion "+c.OtherID.String()+")")
		}
		passed := slices.DeleteFunc(ids, func(id uuid.UUID) bool { return dups[id] != nil })
		_, err = q.AdvanceAssertions(ctx, db.AdvanceAssertionsParams{Ids: passed, Step: StepChecked, FromStep: StepPending})
		return err
	})
	if err != nil {
		return nil, err
	}
	return dups, nil
}

// identityLock names the lock of a recipient identity within its badge, as the duplicate rule reads it
// (recipient.Identity).
func identityLock(as db.Assertion) string {
	return as.OrgID.String() + "/" + as.BadgeID.String() + "/" +
		rcpt.Identity(as.RecipientEmail, as.RecipientPhone, as.RecipientSourcedID)
}

// lockError classes the failures of the locked check: a lock wait past lockTimeout is ISSUANCE_LOCK_TIMEOUT; a
// connection lost while holding the lock (the commit could not be confirmed) is ISSUANCE_LOCK_LOST.
func lockError(err error) error {
	if err == nil || errcode.Of(err) != errcode.Unknown {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
		return errcode.Wrap(errcode.IssuanceLockTimeout, "wait for the recipient lock", err)
	}
	if pgconn.SafeToRetry(err) || errors.Is(err, context.DeadlineExceeded) || isConnError(err) {
		return errcode.Wrap(errcode.IssuanceLockLost, "recipient lock", err)
	}
	return err
}

func isConnError(err error) bool {
	var pgErr *pgconn.PgError
	return !errors.As(err, &pgErr) // not a server-side error: the connection itself failed
}
