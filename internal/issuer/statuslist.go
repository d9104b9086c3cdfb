package issuer

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
)

// StatusListBits is the size of every list: the W3C minimum of 131,072 entries (16 KiB), which also hides which
// entry belongs to whom among many.
const StatusListBits = 131_072

// StatusEntry is an assertion's place in a status list.
type StatusEntry struct {
	List  uuid.UUID
	Index int
}

// AllocateStatuses gives each assertion without one its status list entry and returns every assertion's entry.
// The assertions belong to one organization and mode (one issuance's chunk). Allocation is serialised per
// organization and mode, in one transaction with consecutive indexes, so concurrent first issuances fill one list
// before the next opens. A retried call returns the stored entries.
func (s *Service) AllocateStatuses(ctx context.Context, as []db.Assertion) (map[uuid.UUID]StatusEntry, error) {
	out := make(map[uuid.UUID]StatusEntry, len(as))
	var need []uuid.UUID
	for _, a := range as {
		if a.StatusListID != nil && a.StatusListIndex != nil {
			out[a.ID] = StatusEntry{*a.StatusListID, int(*a.StatusListIndex)}
			continue
		}
		need = append(need, a.ID)
	}
	if len(need) == 0 {
		return out, nil
	}
	org, mode := as[0].OrgID, as[0].Mode
	size := s.StatusListSize
	if size <= 0 {
		size = StatusListBits
	}
	fresh := map[uuid.UUID]StatusEntry{}
	err := s.DB.InTx(ctx, func(q *db.Queries) error {
		if err := q.LockStatusAllocation(ctx, db.LockStatusAllocationParams{OrgID: org, Mode: mode}); err != nil {
			return err
		}
		for rest := need; len(rest) > 0; {
			l, err := q.GetOpenStatusList(ctx, db.GetOpenStatusListParams{OrgID: org, Mode: mode})
			if db.IsNotFound(err) {
				l, err = q.CreateStatusList(ctx, db.CreateStatusListParams{ID: uuid.New(), OrgID: org, Mode: mode,
					Size: int32(size), Bits: make([]byte, (size+7)/8)})
			}
			if err != nil {
				return err
			}
			take := rest[:min(len(rest), int(l.Size-l.NextIndex))]
			first, err := q.TakeStatusIndexes(ctx, db.TakeStatusIndexesParams{ID: l.ID, N: int32(len(take))})
			if err != nil {
				return err
			}
			indexes := make([]int32, len(take))
			for i, id := range take {
				indexes[i] = first + int32(i)
				fresh[id] = StatusEntry{l.ID, int(first) + i}
			}
			n, err := q.SetAssertionStatusEntries(ctx, db.SetAssertionStatusEntriesParams{ListID: l.ID, Ids: take, Indexes: indexes})
			if err != nil {
				return err
			}
			if int(n) != len(take) {
				return errAlreadyAssigned // a concurrent attempt assigned some first: use what it stored
			}
			rest = rest[len(take):]
		}
		return nil
	})
	if err == errAlreadyAssigned {
		return s.storedStatuses(ctx, as)
	}
	if err != nil {
		return nil, err
	}
	maps.Copy(out, fresh)
	return out, nil
}

// storedStatuses reads the entries stored for the assertions, once another attempt has assigned them.
func (s *Service) storedStatuses(ctx context.Context, as []db.Assertion) (map[uuid.UUID]StatusEntry, error) {
	out := make(map[uuid.UUID]StatusEntry, len(as))
	for _, a := range as {
		cur, err := s.DB.GetAssertionByID(ctx, a.ID)
		if err != nil {
			return nil, err
		}
		if cur.StatusListID == nil || cur.StatusListIndex == nil {
			return nil, fmt.Errorf("assertion %s: status entry lost in a concurrent allocation", a.ID)
		}
		out[a.ID] = StatusEntry{*cur.StatusListID, int(*cur.StatusListIndex)}
	}
	return out, nil
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
	// A list holds entries of one mode, and its issuer is that mode's: a test credential's status comes from the
	// test issuer, as its proof does.
	doc := credential.BuildStatusListCredential(s.StatusListURL(l.ID), s.IssuerID(l.OrgID, l.Mode), encoded, validFrom)
	out, err := s.Sign(ctx, l.OrgID, l.Mode, doc, validFrom)
	return out, true, err
}
