package activities

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	rcpt "github.com/badged/badged/internal/recipient"
	"github.com/badged/badged/internal/serial"
)

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
			var rs []rcpt.Staged
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
