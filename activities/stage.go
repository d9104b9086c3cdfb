package activities

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/serial"
)

// Staged recipients (migration 0015): an issuance of more than StageAbove recipients is accepted with its
// recipients in slices of StageSlice (issuance_recipient_slices) instead of one assertion row each, so the POST
// answers within seconds at 100,000 recipients; LoadBatch writes a slice's assertions when its batch starts.
const (
	// StageAbove is the largest issuance whose assertions the POST writes itself: the old request limit, so every
	// request that limit allowed is recorded exactly as before.
	StageAbove = 10_000
	// StageSlice is the number of recipients per staged row: one batch of the workflow (workflows.BatchSize).
	StageSlice = 500
)

// StagedRecipient is one normalized recipient as the API validated it (README "Running at scale").
type StagedRecipient struct {
	Name        string  `json:"name"`
	Email       *string `json:"email"`
	PhoneNumber *string `json:"phoneNumber"`
	SourcedID   *string `json:"sourcedId"`
	ReceiveType string  `json:"receiveType"`
}

// RecipientSlices cuts an issuance's recipients into its staged rows; firstSerial is the serial of seq 0.
func RecipientSlices(issuance uuid.UUID, firstSerial int64, rs []StagedRecipient) ([]db.InsertRecipientSlicesParams, error) {
	out := make([]db.InsertRecipientSlicesParams, 0, (len(rs)+StageSlice-1)/StageSlice)
	for from := 0; from < len(rs); from += StageSlice {
		to := min(from+StageSlice, len(rs))
		data, err := json.Marshal(rs[from:to])
		if err != nil {
			return nil, fmt.Errorf("stage recipients: %w", err)
		}
		out = append(out, db.InsertRecipientSlicesParams{IssuanceID: issuance, FromSeq: int32(from), ToSeq: int32(to),
			FirstSerial: firstSerial, Recipients: data})
	}
	return out, nil
}

// materialize writes the assertions of the staged slices overlapping [from, to) of an issuance and deletes those
// slices, in one transaction that holds their row locks: a retried or concurrent LoadBatch finds them written (or
// waits, then finds nothing left to do). Each assertion is what the POST would have written: the issuance's
// badge, program, mode, version and dates, created at the issuance's creation time.
func (a *Activities) materialize(ctx context.Context, issuance uuid.UUID, from, to int) error {
	return a.DB.InTx(ctx, func(q *db.Queries) error {
		slices, err := q.LockRecipientSlices(ctx, db.LockRecipientSlicesParams{IssuanceID: issuance, FromSeq: int32(from), ToSeq: int32(to)})
		if err != nil || len(slices) == 0 {
			return err
		}
		iss, err := q.GetIssuanceAnyOrg(ctx, issuance)
		if err != nil {
			return err
		}
		// The serials of the counters the POST reserved (first_serial), made as the POST makes them (internal/serial).
		key, err := q.GetSerialKey(ctx, iss.OrgID)
		if err != nil {
			return err
		}
		numbers, err := serial.New(iss.OrgID, key)
		if err != nil {
			return err
		}
		var rows []db.InsertAssertionsParams
		for _, s := range slices {
			var rs []StagedRecipient
			if err := json.Unmarshal(s.Recipients, &rs); err != nil {
				return fmt.Errorf("staged recipients %s/%d: %w", issuance, s.FromSeq, err)
			}
			if len(rs) != int(s.ToSeq-s.FromSeq) {
				return fmt.Errorf("staged recipients %s/%d: %d recipients for seq %d..%d", issuance, s.FromSeq, len(rs), s.FromSeq, s.ToSeq)
			}
			for i, r := range rs {
				seq := int64(s.FromSeq) + int64(i)
				rows = append(rows, db.InsertAssertionsParams{ID: uuid.New(), OrgID: iss.OrgID, IssuanceID: iss.ID,
					BadgeID: iss.BadgeID, ProgramID: iss.ProgramID, Mode: iss.Mode, ApiVersion: iss.ApiVersion,
					Seq: int32(seq), SerialNumber: numbers.Number(s.FirstSerial + seq), RecipientName: r.Name,
					RecipientEmail: r.Email, RecipientPhone: r.PhoneNumber, RecipientSourcedID: r.SourcedID,
					ReceiveType: r.ReceiveType, IssuedAt: iss.IssuedAt, ExpiredAt: iss.ExpiredAt, CreatedAt: iss.CreatedAt})
			}
			if err := q.DeleteRecipientSlice(ctx, db.DeleteRecipientSliceParams{IssuanceID: issuance, FromSeq: s.FromSeq}); err != nil {
				return err
			}
		}
		if _, err := q.InsertAssertions(ctx, rows); err != nil {
			return fmt.Errorf("write staged assertions: %w", err)
		}
		return nil
	})
}
