package api

import (
	"maps"
	"slices"

	"github.com/google/uuid"
)

// setVal applies a non-nullable field: only a sent value changes it.
func setVal[T any](dst *T, f opt[T]) {
	if f.Set && !f.Null {
		*dst = f.Val
	}
}

// setPtr applies a nullable field: a value sets it, null clears it, absence keeps it.
func setPtr[T any](dst **T, f opt[T]) {
	switch {
	case !f.Set:
	case f.Null:
		*dst = nil
	default:
		v := f.Val
		*dst = &v
	}
}

// requireFields records "is required" for each create field that was not sent.
func requireFields(o *object, sent map[string]bool) {
	for _, name := range slices.Sorted(maps.Keys(sent)) {
		if !sent[name] && !o.has(name) {
			o.fail(name, "is required")
		}
	}
}

func idStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// nonNil keeps sqlc array parameters from being sent as SQL NULL, which would make "NOT (x = ANY(NULL))" unknown.
func nonNil(ids []uuid.UUID) []uuid.UUID {
	if ids == nil {
		return []uuid.UUID{}
	}
	return ids
}
