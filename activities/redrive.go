package activities

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// LoadRecipientsInput names recipients of an issuance by assertion id (an operator's re-drive).
type LoadRecipientsInput struct {
	IssuanceID   uuid.UUID
	AssertionIDs []uuid.UUID
}

// LoadRecipients returns the named recipients of the issuance in seq order, like LoadBatch does for a seq range.
// Ids of other issuances are ignored.
func (a *Activities) LoadRecipients(ctx context.Context, in LoadRecipientsInput) (LoadBatchResult, error) {
	rows, err := a.DB.ListRecipientsByIDs(ctx, db.ListRecipientsByIDsParams{IssuanceID: in.IssuanceID, Ids: in.AssertionIDs})
	if err != nil {
		return LoadBatchResult{}, persistErr("load recipients", fmt.Errorf("issuance %s: %w", in.IssuanceID, err))
	}
	out := LoadBatchResult{Recipients: make([]RecipientRef, len(rows))}
	for i, r := range rows {
		out.Recipients[i] = RecipientRef{AssertionID: r.ID, Seq: int(r.Seq), Step: r.Step, Done: r.State != string(db.AssertionProcessing)}
	}
	return out, nil
}
