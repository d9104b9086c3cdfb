package issuer

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
)

// StatusListBits is the size of every list: the W3C minimum of 131,072 entries (16 KiB), which also hides which
// entry belongs to whom among many.
const StatusListBits = 131_072

// AllocateStatus gives the assertion its status list entry, once: a retried call returns the stored entry.
func (s *Service) AllocateStatus(ctx context.Context, a db.Assertion) (list uuid.UUID, index int, err error) {
	if a.StatusListID != nil && a.StatusListIndex != nil {
		return *a.StatusListID, int(*a.StatusListIndex), nil
	}
	err = s.DB.InTx(ctx, func(q *db.Queries) error {
		l, err := q.GetOpenStatusList(ctx, db.GetOpenStatusListParams{OrgID: a.OrgID, Mode: a.Mode})
		if db.IsNotFound(err) {
			l, err = q.CreateStatusList(ctx, db.CreateStatusListParams{ID: uuid.New(), OrgID: a.OrgID, Mode: a.Mode,
				Size: StatusListBits, Bits: make([]byte, StatusListBits/8)})
		}
		if err != nil {
			return err
		}
		i, err := q.TakeStatusIndex(ctx, l.ID)
		if err != nil {
			return err
		}
		n, err := q.SetAssertionStatusEntry(ctx, db.SetAssertionStatusEntryParams{ID: a.ID, StatusListID: &l.ID, StatusListIndex: &i})
		if err != nil {
			return err
		}
		if n == 0 {
			// Another attempt assigned an entry first; roll back ours and use that one.
			return errAlreadyAssigned
		}
		list, index = l.ID, int(i)
		return nil
	})
	if err == errAlreadyAssigned {
		cur, err := s.DB.GetAssertionByID(ctx, a.ID)
		if err != nil {
			return uuid.Nil, 0, err
		}
		return *cur.StatusListID, int(*cur.StatusListIndex), nil
	}
	return list, index, err
}

var errAlreadyAssigned = fmt.Errorf("status entry already assigned")

// Revoke sets the assertion's bit in its list. Setting a set bit is a no-op.
func Revoke(ctx context.Context, q *db.Queries, list uuid.UUID, index int) error {
	// W3C numbers bits from the most significant bit of byte 0; Postgres set_bit from the least significant.
	pgBit := index/8*8 + (7 - index%8)
	return q.SetStatusBit(ctx, db.SetStatusBitParams{ID: list, BitIndex: int32(pgBit)})
}

// StatusListCredential builds and signs the list's BitstringStatusListCredential as it is now. validFrom is the
// list's last change, so the same state always signs to the same bytes.
func (s *Service) StatusListCredential(ctx context.Context, id uuid.UUID) ([]byte, bool, error) {
	l, err := s.DB.GetStatusList(ctx, id)
	if db.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	sl := credential.NewStatusList(int(l.Size))
	for i := 0; i < int(l.Size); i++ {
		if l.Bits[i/8]&(0x80>>(i%8)) != 0 {
			if err := sl.Set(i, true); err != nil {
				return nil, false, err
			}
		}
	}
	encoded, err := sl.Encode()
	if err != nil {
		return nil, false, err
	}
	validFrom := l.UpdatedAt.UTC().Truncate(time.Second)
	doc := credential.BuildStatusListCredential(s.StatusListURL(l.ID), s.IssuerID(l.OrgID), encoded, validFrom)
	out, err := s.Sign(ctx, l.OrgID, doc, validFrom)
	return out, true, err
}
