package api

import (
	"context"
	"net/http"
	"net/url"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// The scaffold of the two resources that link each other, badges and programs: reading one, a page of them and
// deleting one are the same steps for both; a linked says what differs. Their links are kept in links.go.

// linked is what the scaffold needs to know of badges (badges.go) or programs (programs.go).
type linked[R, T any] struct {
	param string // the path parameter of an id
	code  string // the not-found code: BDG001 or PRG001
	noun  string // what the not-found message calls a row
	id    func(R) uuid.UUID
	get   func(ctx context.Context, org, id uuid.UUID) (R, error)
	// links are the ids each row links (programIDsOf, badgeIDsOf).
	links    func(ctx context.Context, q *db.Queries, org uuid.UUID, ids ...uuid.UUID) (map[uuid.UUID][]uuid.UUID, error)
	response func(v version, row R, links []uuid.UUID) T
	// setLinks makes the links of a row exactly keep (linkBadge, linkProgram).
	setLinks func(ctx context.Context, q *db.Queries, org, id uuid.UUID, keep []uuid.UUID) error
}

func (k linked[R, T]) notFound(id uuidValue) error {
	return newError(k.code, "%s %s not found", k.noun, id)
}

// getLinked answers one row with the ids it links.
func getLinked[R, T any](h *handler, w http.ResponseWriter, r *http.Request, k linked[R, T]) error {
	id, err := pathID(r, k.param)
	if err != nil {
		return err
	}
	org, v := principalOf(r.Context()).OrgID, versionOf(r.Context())
	row, err := k.get(r.Context(), org, id.UUID)
	if db.IsNotFound(err) {
		err = k.notFound(id)
	}
	if err != nil {
		return err
	}
	links, err := k.links(r.Context(), h.db.Queries, org, k.id(row))
	if err != nil {
		return err
	}
	h.ok(w, k.response(v, row, links[k.id(row)]))
	return nil
}

// listQuery is a list request of badges or programs: the page, the order by the keys both sort on, and the
// categoryCode filter (nil: any).
type listQuery struct {
	page     pageRequest
	order    sortOrders
	category *string
}

func parseListQuery(q url.Values, categories []string) (listQuery, error) {
	page, err := parsePage(q)
	if err != nil {
		return listQuery{}, err
	}
	order, err := parseSort(q, "createdAt", "updatedAt", "name")
	if err != nil {
		return listQuery{}, err
	}
	category, err := queryEnum(q, "categoryCode", categories...)
	return listQuery{page: page, order: order, category: category}, err
}

// listArgs are the order and the window of a list query, as ListBadges and ListPrograms take them.
type listArgs struct {
	sort1, sort2, sort3         string
	desc1, desc2, desc3, idDesc bool
	lim, off                    int32
}

func (lq listQuery) args() listArgs {
	a := listArgs{idDesc: lq.order.idDesc(), lim: int32(lq.page.size), off: lq.page.offset()}
	a.sort1, a.desc1 = lq.order.at(0)
	a.sort2, a.desc2 = lq.order.at(1)
	a.sort3, a.desc3 = lq.order.at(2)
	return a
}

// listLinked answers a page of rows, each with the ids it links: params gives the resource's count and list
// queries their arguments (its filters, and the order and window of a).
func listLinked[R, T, CP, LP any](h *handler, w http.ResponseWriter, r *http.Request, k linked[R, T], lq listQuery,
	count func(context.Context, CP) (int64, error), list func(context.Context, LP) ([]R, error),
	params func(org uuid.UUID, a listArgs) (CP, LP)) error {
	org, v := principalOf(r.Context()).OrgID, versionOf(r.Context())
	cp, lp := params(org, lq.args())
	total, err := count(r.Context(), cp)
	if err != nil {
		return err
	}
	rows, err := list(r.Context(), lp)
	if err != nil {
		return err
	}
	items, err := withLinks(rows, k.id,
		func(ids []uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
			return k.links(r.Context(), h.db.Queries, org, ids...)
		},
		func(row R, links []uuid.UUID) T { return k.response(v, row, links) })
	if err != nil {
		return err
	}
	okList(h, w, lq.page, total, items)
	return nil
}

type deletedResponse struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// deleteLinked deletes a row and, in the same transaction, its links; del reports how many rows it deleted.
func deleteLinked[R, T any](h *handler, w http.ResponseWriter, r *http.Request, k linked[R, T],
	del func(ctx context.Context, q *db.Queries, org, id uuid.UUID) (int64, error)) error {
	id, err := pathID(r, k.param)
	if err != nil {
		return err
	}
	org := principalOf(r.Context()).OrgID
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		n, err := del(r.Context(), q, org, id.UUID)
		if err != nil {
			return err
		}
		if n == 0 {
			return k.notFound(id)
		}
		return k.setLinks(r.Context(), q, org, id.UUID, nil)
	})
	if err != nil {
		return err
	}
	h.ok(w, deletedResponse{ID: id.String(), Deleted: true})
	return nil
}

// readInput reads a JSON body with read, records "is required" for each field required names as missing (nil: a
// PATCH, where every field may be absent) and answers every problem of the body at once.
func readInput[I any](h *handler, w http.ResponseWriter, r *http.Request, read func(*object) I,
	required func(I) map[string]bool) (I, error) {
	var in I
	o, err := h.decodeBody(w, r, maxJSONBody)
	if err != nil {
		return in, err
	}
	in = read(o)
	if required != nil {
		requireFields(o, required(in))
	}
	return in, o.err()
}

// createLinked creates a row from a body (write checks and inserts it) and links it to exactly the ids the body
// names, in one transaction.
func createLinked[R, T, I any](h *handler, w http.ResponseWriter, r *http.Request, k linked[R, T],
	read func(*object) I, required func(I) map[string]bool, ids func(I) opt[[]uuid.UUID],
	write func(ctx context.Context, q *db.Queries, org uuid.UUID, in I) (R, error)) error {
	in, err := readInput(h, w, r, read, required)
	if err != nil {
		return err
	}
	org := principalOf(r.Context()).OrgID
	return writeLinked(h, w, r, k, opt[[]uuid.UUID]{Set: true, Val: ids(in).Val},
		func(ctx context.Context, q *db.Queries) (R, error) { return write(ctx, q, org, in) })
}

// updateLinked applies a PATCH body to a row: lock reads it for update, write merges, checks and writes it, and
// its links become the ids the body names, when it names any, in the same transaction.
func updateLinked[R, T, I any](h *handler, w http.ResponseWriter, r *http.Request, k linked[R, T],
	read func(*object) I, ids func(I) opt[[]uuid.UUID], lock func(ctx context.Context, q *db.Queries, org, id uuid.UUID) (R, error),
	write func(ctx context.Context, q *db.Queries, org uuid.UUID, in I, row R) (R, error)) error {
	id, err := pathID(r, k.param)
	if err != nil {
		return err
	}
	in, err := readInput(h, w, r, read, nil)
	if err != nil {
		return err
	}
	org := principalOf(r.Context()).OrgID
	return writeLinked(h, w, r, k, ids(in), func(ctx context.Context, q *db.Queries) (R, error) {
		row, err := lock(ctx, q, org, id.UUID)
		if db.IsNotFound(err) {
			return row, k.notFound(id)
		}
		if err != nil {
			return row, err
		}
		return write(ctx, q, org, in, row)
	})
}

// writeLinked runs write and then sets the written row's links to ids (when set) or reads them, in one
// transaction, and answers the row with them.
func writeLinked[R, T any](h *handler, w http.ResponseWriter, r *http.Request, k linked[R, T], ids opt[[]uuid.UUID],
	write func(ctx context.Context, q *db.Queries) (R, error)) error {
	org := principalOf(r.Context()).OrgID
	var out R
	var links []uuid.UUID
	err := h.db.InTx(r.Context(), func(q *db.Queries) error {
		var err error
		if out, err = write(r.Context(), q); err != nil {
			return err
		}
		if ids.Set {
			links = ids.Val
			return k.setLinks(r.Context(), q, org, k.id(out), ids.Val)
		}
		m, err := k.links(r.Context(), q, org, k.id(out))
		links = m[k.id(out)]
		return err
	})
	if err != nil {
		return err
	}
	h.ok(w, k.response(versionOf(r.Context()), out, links))
	return nil
}
