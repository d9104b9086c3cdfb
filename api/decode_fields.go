package api

// The readers of one field of a request object, by its type: each records its problem on the object (decode.go)
// and answers an opt that tells an omitted field from an explicit null.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/badged/badged/internal/safetext"
	"github.com/badged/badged/internal/web"
)

// opt is a field of a request: absent, null, or a value. Set is false when the field was omitted.
type opt[T any] struct {
	Set  bool
	Null bool
	Val  T
}

// textRule says what a string field accepts.
type textRule struct {
	nullable  bool // null clears it
	max       int  // maximum length in characters
	blankOK   bool // an empty or all-space value is allowed
	multiline bool // line breaks, tabs and bidirectional controls are allowed (descriptions); see internal/safetext
}

// text reads a string field. Surrounding spaces are trimmed. The characters it may hold are safetext's rule: a
// name (the default) is one line without control or bidirectional override characters.
func (o *object) text(name string, rule textRule) opt[string] {
	raw, ok := o.raw[name]
	if !ok {
		return opt[string]{}
	}
	if o.null(name) {
		if !rule.nullable {
			o.fail(name, "must not be null")
			return opt[string]{}
		}
		return opt[string]{Set: true, Null: true}
	}
	s, err := unmarshalString(raw)
	if err != nil {
		o.badFormat(name, "must be a string")
		return opt[string]{}
	}
	s = strings.TrimSpace(s)
	switch {
	case s == "" && !rule.blankOK:
		o.fail(name, "must not be empty")
		return opt[string]{}
	case rule.max > 0 && utf8.RuneCountInString(s) > rule.max:
		o.fail(name, fmt.Sprintf("must be at most %d characters", rule.max))
		return opt[string]{}
	}
	kind := safetext.Name
	if rule.multiline {
		kind = safetext.Multiline
	}
	if p := safetext.Problem(s, kind); p != "" {
		o.fail(name, p)
		return opt[string]{}
	}
	return opt[string]{Set: true, Val: s}
}

// enum reads a string field that must be one of values.
func (o *object) enum(name string, nullable bool, values ...string) opt[string] {
	f := o.text(name, textRule{nullable: nullable})
	if f.Set && !f.Null && !slices.Contains(values, f.Val) {
		o.fail(name, fmt.Sprintf("unknown value %q; allowed: %s", f.Val, strings.Join(values, ", ")))
		return opt[string]{}
	}
	return f
}

// url reads an absolute http(s) URL.
func (o *object) url(name string, nullable bool) opt[string] {
	f := o.text(name, textRule{nullable: nullable, max: 2048})
	if f.Set && !f.Null {
		u, err := url.Parse(f.Val)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			o.badFormat(name, "must be an absolute http or https URL")
			return opt[string]{}
		}
	}
	return f
}

// id reads a UUID string.
func (o *object) id(name string, nullable bool) opt[uuid.UUID] {
	f := o.text(name, textRule{nullable: nullable})
	if !f.Set || f.Null {
		return opt[uuid.UUID]{Set: f.Set, Null: f.Null}
	}
	id, err := parseUUID(f.Val)
	if err != nil {
		o.badFormat(name, "must be a UUID")
		return opt[uuid.UUID]{}
	}
	return opt[uuid.UUID]{Set: true, Val: id}
}

// parseUUID accepts only the canonical 36-character form, as the contract's identifiers are (the rule is
// web.ParseUUID's, which the badge page's routes share).
var parseUUID = web.ParseUUID

// ids reads an array of distinct UUIDs. Arrays never accept null (PATCH rule 4).
func (o *object) ids(name string, max int) opt[[]uuid.UUID] {
	items, ok := o.array(name)
	if !ok {
		return opt[[]uuid.UUID]{}
	}
	if len(items) > max {
		o.fail(name, fmt.Sprintf("must have at most %d items", max))
		return opt[[]uuid.UUID]{}
	}
	out := make([]uuid.UUID, 0, len(items))
	good := true
	for i, raw := range items {
		var s string
		id, err := uuid.Nil, json.Unmarshal(raw, &s)
		if err == nil {
			id, err = parseUUID(s)
		}
		if err != nil {
			o.badFormat(fmt.Sprintf("%s[%d]", name, i), "must be a UUID")
			good = false
			continue
		}
		if slices.Contains(out, id) {
			o.fail(fmt.Sprintf("%s[%d]", name, i), "duplicate id "+s)
			good = false
			continue
		}
		out = append(out, id)
	}
	if !good {
		return opt[[]uuid.UUID]{}
	}
	return opt[[]uuid.UUID]{Set: true, Val: out}
}

// array reads the raw items of an array field; ok is false when omitted or invalid (the problem is recorded).
func (o *object) array(name string) ([]json.RawMessage, bool) {
	raw, present := o.raw[name]
	if !present {
		return nil, false
	}
	if o.null(name) {
		o.fail(name, "must not be null; send [] for none")
		return nil, false
	}
	if raw[0] == '[' {
		return splitArray(raw), true // valid JSON: the body was parsed whole
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		o.badFormat(name, "must be an array")
		return nil, false
	}
	return items, true
}

// objects reads an array of objects, calling each for every element with a nested reader whose errors carry
// the element's index ("criteria[2].category").
func (o *object) objects(name string, min, max int, each func(i int, item *object)) bool {
	items, ok := o.array(name)
	if !ok {
		return false
	}
	if len(items) < min {
		o.fail(name, fmt.Sprintf("must have at least %d item(s)", min))
		return false
	}
	if len(items) > max {
		o.fail(name, fmt.Sprintf("must have at most %d items", max))
		return false
	}
	before := len(*o.errs)
	for i, raw := range items {
		field := name + "[" + strconv.Itoa(i) + "]"
		m, ok := rawObject(raw)
		if !ok {
			o.badFormat(field, "must be an object")
			continue
		}
		each(i, &object{raw: m, prefix: o.prefix + field + ".", errs: o.errs, v: o.v, loc: o.loc})
	}
	return len(*o.errs) == before
}

// boolean reads a true/false field.
func (o *object) boolean(name string) opt[bool] {
	raw, ok := o.raw[name]
	if !ok {
		return opt[bool]{}
	}
	if o.null(name) {
		o.fail(name, "must not be null")
		return opt[bool]{}
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		o.badFormat(name, "must be true or false")
		return opt[bool]{}
	}
	return opt[bool]{Set: true, Val: b}
}

// integer reads a whole number in [min, max].
func (o *object) integer(name string, nullable bool, min, max int64) opt[int64] {
	raw, ok := o.raw[name]
	if !ok {
		return opt[int64]{}
	}
	if o.null(name) {
		if !nullable {
			o.fail(name, "must not be null")
			return opt[int64]{}
		}
		return opt[int64]{Set: true, Null: true}
	}
	var n json.Number
	// json.Number also accepts a quoted number; a string is not a number here.
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) || json.Unmarshal(raw, &n) != nil {
		o.badFormat(name, "must be a whole number")
		return opt[int64]{}
	}
	v, err := n.Int64()
	if err != nil {
		o.badFormat(name, "must be a whole number")
		return opt[int64]{}
	}
	if v < min || v > max {
		o.fail(name, fmt.Sprintf("must be between %d and %d", min, max))
		return opt[int64]{}
	}
	return opt[int64]{Set: true, Val: v}
}

// datetime reads a datetime in the request version's form (see version.parseTime).
func (o *object) datetime(name string, nullable bool) opt[time.Time] {
	f := o.text(name, textRule{nullable: nullable})
	if !f.Set || f.Null {
		return opt[time.Time]{Set: f.Set, Null: f.Null}
	}
	t, zoned, err := o.v.parseTime(f.Val, o.loc)
	if fe, bad := o.v.timeProblem(name, zoned, err); bad {
		if fe.format {
			o.badFormat(name, fe.Message)
		} else {
			o.fail(name, fe.Message)
		}
		return opt[time.Time]{}
	}
	return opt[time.Time]{Set: true, Val: t}
}

// object reads a nested object field; nil when omitted, null (null recorded in the opt) or invalid.
func (o *object) object(name string, nullable bool) (*object, opt[struct{}]) {
	raw, ok := o.raw[name]
	if !ok {
		return nil, opt[struct{}]{}
	}
	if o.null(name) {
		if !nullable {
			o.fail(name, "must not be null")
			return nil, opt[struct{}]{}
		}
		return nil, opt[struct{}]{Set: true, Null: true}
	}
	m, ok := rawObject(raw)
	if !ok {
		o.badFormat(name, "must be an object")
		return nil, opt[struct{}]{}
	}
	return &object{raw: m, prefix: o.prefix + name + ".", errs: o.errs, v: o.v, loc: o.loc}, opt[struct{}]{Set: true}
}
