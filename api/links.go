package api

import (
	"github.com/google/uuid"
)

// withLinks builds the items of a listed page whose responses carry the ids of linked resources (a badge's
// programs, a program's badges): one query loads the links of every row, then each row becomes its item.
func withLinks[R, T any](rows []R, id func(R) uuid.UUID, links func(ids []uuid.UUID) (map[uuid.UUID][]uuid.UUID, error),
	item func(R, []uuid.UUID) T) ([]T, error) {
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = id(r)
	}
	linked, err := links(ids)
	if err != nil {
		return nil, err
	}
	items := make([]T, len(rows))
	for i, r := range rows {
		items[i] = item(r, linked[ids[i]])
	}
	return items, nil
}

// groupLinks turns link rows into the linked ids of each owner.
func groupLinks[L any](rows []L, pair func(L) (owner, linked uuid.UUID)) map[uuid.UUID][]uuid.UUID {
	out := map[uuid.UUID][]uuid.UUID{}
	for _, row := range rows {
		o, l := pair(row)
		out[o] = append(out[o], l)
	}
	return out
}
