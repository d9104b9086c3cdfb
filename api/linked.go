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
	// unlink makes the links of a row exactly keep (linkBadge, linkProgram).
	unlink func(ctx context.Context, q *db.Queries, org, id uuid.UUID, keep []uuid.UUID) error
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
		return k.unlink(r.Context(), q, org, id.UUID, nil)
	})
	if err != nil {
		return err
	}
	h.ok(w, deletedResponse{ID: id.String(), Deleted: true})
	return nil
}
