package activities

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/errcode"
)

// lockTimeout bounds the wait for another check of the same recipient identity (ISSUANCE_LOCK_TIMEOUT).
const lockTimeout = "5s"

// CheckRecipient runs the recipient-level checks before signing, under a per-recipient lock so that two
// issuances of one badge to one person cannot both pass: MISSING_INFO and RECIPIENT_IDENTITY_MISSING for
// incomplete recipients, DUPLICATE_ISSUANCE when the recipient already holds (or is being given) this badge,
// BADGE_IMAGE_MISSING when the badge image cannot be found.
func (a *Activities) CheckRecipient(ctx context.Context, in StepInput) error {
	err := a.checkRecipient(ctx, in)
	return a.fail(ctx, "check", in, err)
}

func (a *Activities) checkRecipient(ctx context.Context, in StepInput) error {
	row, err := a.DB.GetPipelineAssertion(ctx, in.AssertionID)
	if err != nil {
		return fmt.Errorf("load assertion: %w", err)
	}
	as := row.Assertion
	if as.Step != StepPending {
		return nil // checked by an earlier attempt
	}
	if as.RecipientEmail == nil && as.RecipientPhone == nil && as.RecipientSourcedID == nil {
		return errcode.New(errcode.RecipientIdentityMissing, "the recipient has no email, phone number or sourcedId to identify them")
	}
	switch {
	case as.RecipientName == "":
		return errcode.New(errcode.MissingInfo, "the recipient has no name")
	case as.ReceiveType == "EMAIL" && as.RecipientEmail == nil:
		return errcode.New(errcode.MissingInfo, "receiveType EMAIL needs an email address")
	case as.ReceiveType == "KAKAOTALK" && as.RecipientPhone == nil:
		return errcode.New(errcode.MissingInfo, "receiveType KAKAOTALK needs a phone number")
	}
	if _, _, err := a.badgeImageKey(ctx, row.BadgeImageID); err != nil {
		return err
	}
	identity := "s:" + deref(as.RecipientSourcedID)
	if as.RecipientEmail != nil {
		identity = "e:" + *as.RecipientEmail
	} else if as.RecipientPhone != nil {
		identity = "p:" + *as.RecipientPhone
	}
	err = a.DB.InTx(ctx, func(q *db.Queries) error {
		if err := q.SetLockTimeout(ctx, lockTimeout); err != nil {
			return err
		}
		if err := q.LockRecipient(ctx, as.OrgID.String()+"/"+as.BadgeID.String()+"/"+identity); err != nil {
			return err
		}
		other, err := q.FindConflictingAssertion(ctx, db.FindConflictingAssertionParams{OrgID: as.OrgID,
			BadgeID: as.BadgeID, Mode: as.Mode, ID: as.ID, Email: as.RecipientEmail, Phone: as.RecipientPhone,
			SourcedID: as.RecipientSourcedID, IssuanceID: as.IssuanceID, Seq: as.Seq})
		if err == nil {
			return errcode.New(errcode.DuplicateIssuance, "the recipient already holds or is being issued this badge (assertion "+other.String()+")")
		}
		if !db.IsNotFound(err) {
			return err
		}
		_, err = q.SetAssertionStep(ctx, db.SetAssertionStepParams{ID: as.ID, Step: StepChecked, FromStep: StepPending})
		return err
	})
	return lockError(err)
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
