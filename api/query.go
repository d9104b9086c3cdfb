package api

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Page limits of every list (contract "Limits").
const (
	defaultPageSize = 20
	maxPageSize     = 100
)

type pageRequest struct {
	page, size int
}

func (p pageRequest) offset() int32 { return int32((p.page - 1) * p.size) }

// maxOffset keeps OFFSET bounded: page*size beyond this is refused rather than scanned.
const maxOffset = 1_000_000

// parsePage reads page and size: a non-number is a format error (COM002), a number out of range a rule
// violation (COM006).
func parsePage(q url.Values) (pageRequest, error) {
	p := pageRequest{page: 1, size: defaultPageSize}
	var fields []fieldError
	read := func(name string, dst *int, min, max int) {
		s, ok := q[name]
		if !ok {
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(s[0]))
		switch {
		case err != nil:
			fields = append(fields, fieldError{Field: name, Message: "must be a whole number", format: true})
		case n < min || n > max:
			fields = append(fields, fieldError{Field: name, Message: fmt.Sprintf("must be between %d and %d", min, max)})
		default:
			*dst = n
		}
	}
	read("page", &p.page, 1, maxOffset)
	read("size", &p.size, 1, maxPageSize)
	if len(fields) == 0 && (p.page-1)*p.size > maxOffset {
		fields = append(fields, fieldError{Field: "page", Message: fmt.Sprintf("page*size must not pass %d; narrow the filters", maxOffset)})
	}
	if len(fields) > 0 {
		return p, fieldsError(fields)
	}
	return p, nil
}

// sortOrder is one `field,direction` of the sort parameter.
type sortOrder struct {
	field string
	desc  bool
}

// sortOrders is a normalized sort: each field once, in the caller's order, ending with createdAt and id as the
// tie-breakers unless given. Every list query orders by exactly these keys.
type sortOrders []sortOrder

// parseSort reads the repeatable sort parameter against a whitelist, each `field,direction` applied in turn.
// Unknown fields are COM020; a bad direction is COM002. A field given again is ignored (the first one already
// decided). The default is the contract's `createdAt,desc` then `id,desc`; a sort that does not name them gets
// createdAt and then id in the direction of its first field, so that pages never overlap.
func parseSort(q url.Values, allowed ...string) (sortOrders, error) {
	var out sortOrders
	for _, v := range q["sort"] {
		field, dir, _ := strings.Cut(strings.TrimSpace(v), ",")
		field = strings.TrimSpace(field)
		if !slices.Contains(allowed, field) {
			return nil, newError(codeSort, "unsupported sort field %q; allowed: %s", field, strings.Join(allowed, ", "))
		}
		o := sortOrder{field: field}
		switch strings.ToLower(strings.TrimSpace(dir)) {
		case "", "asc":
		case "desc":
			o.desc = true
		default:
			return nil, &apiError{status: statusOf(codeFormat), code: codeFormat, msg: "sort direction must be asc or desc",
				fields: []fieldError{{Field: "sort", Message: fmt.Sprintf("direction %q must be asc or desc", dir), format: true}}}
		}
		if _, seen := out.find(field); !seen {
			out = append(out, o)
		}
	}
	desc := len(out) == 0 || out[0].desc
	for _, tie := range []string{"createdAt", "id"} {
		if _, seen := out.find(tie); !seen {
			out = append(out, sortOrder{field: tie, desc: desc})
		}
	}
	return out, nil
}

// find returns the order of field and whether it is in s.
func (s sortOrders) find(field string) (sortOrder, bool) {
	for _, o := range s {
		if o.field == field {
			return o, true
		}
	}
	return sortOrder{}, false
}

// idDesc is the direction of the final tie-breaker, id.
func (s sortOrders) idDesc() bool {
	o, _ := s.find("id")
	return o.desc
}

// at is the i-th sort key before id, for the list queries' sortN/descN parameters; "" past the end. Keys after
// id are never reached (ids are unique), so they are left out.
func (s sortOrders) at(i int) (string, bool) {
	for _, o := range s {
		if o.field == "id" {
			break
		}
		if i == 0 {
			return o.field, o.desc
		}
		i--
	}
	return "", false
}

// queryEnum reads an optional query parameter that must be one of values (a list of strings or of typed states,
// such as db.AssertionStates); nil when absent.
func queryEnum[T ~string](q url.Values, name string, values ...T) (*string, error) {
	s, ok := q[name]
	if !ok {
		return nil, nil
	}
	v := strings.TrimSpace(s[0])
	if !slices.Contains(values, T(v)) {
		allowed := make([]string, len(values))
		for i, a := range values {
			allowed[i] = string(a)
		}
		return nil, &apiError{status: statusOf(codeValidation), code: codeValidation,
			msg:    fmt.Sprintf("%s: unknown value %q", name, v),
			fields: []fieldError{{Field: name, Message: fmt.Sprintf("unknown value %q; allowed: %s", v, strings.Join(allowed, ", "))}}}
	}
	return &v, nil
}

// queryUUID reads an optional UUID query parameter.
func queryUUID(q url.Values, name string) (*uuid.UUID, error) {
	s, ok := q[name]
	if !ok {
		return nil, nil
	}
	id, err := parseUUID(strings.TrimSpace(s[0]))
	if err != nil {
		return nil, &apiError{status: statusOf(codeFormat), code: codeFormat, msg: name + " must be a UUID",
			fields: []fieldError{{Field: name, Message: "must be a UUID", format: true}}}
	}
	return &id, nil
}

// queryBool reads an optional boolean query parameter, given at most once as true or false; anything else is a
// format error (COM002), so a typo such as dryRun=yes never silently runs the real request.
func queryBool(q url.Values, name string) (bool, error) {
	s, ok := q[name]
	if !ok {
		return false, nil
	}
	if len(s) == 1 {
		switch strings.TrimSpace(s[0]) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, &apiError{status: statusOf(codeFormat), code: codeFormat, msg: name + " must be true or false",
		fields: []fieldError{{Field: name, Message: "must be given once, as true or false", format: true}}}
}
