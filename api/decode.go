package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"time"
)

// maxJSONBody caps resource bodies. Larger bodies are answered 413.
const maxJSONBody = 1 << 20

// object is a JSON object being read field by field. It keeps every field problem so one response lists them
// all, and it tells an omitted field from an explicit null, which PATCH needs.
type object struct {
	raw    map[string]json.RawMessage
	prefix string // "recipients[3]." for nested objects
	errs   *[]fieldError
	v      version
	loc    *time.Location
	body   []byte // the whole body as sent (top-level object only)
}

// decodeBody reads a JSON object body. Malformed JSON, a non-object, trailing data or a body over limit are
// answered before any field is looked at.
func (h *handler) decodeBody(w http.ResponseWriter, r *http.Request, limit int64) (*object, error) {
	body, err := readBody(w, r, limit)
	if err != nil {
		return nil, err
	}
	return h.parseBody(r, body)
}

// readBody reads the whole request body, at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, bodyTooLarge(limit) // answered unread: a client waiting on "Expect: 100-continue" never sends it
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, bodyTooLarge(limit)
		}
		return nil, newError(codeFormat, "request body could not be read")
	}
	return body, nil
}

// bodyTooLarge is the 413 of a body over limit, built only when one is (readBody runs on every write).
func bodyTooLarge(limit int64) error {
	return &apiError{status: http.StatusRequestEntityTooLarge, code: codeValidation,
		msg: fmt.Sprintf("request body is larger than %d bytes", limit)}
}

// parseBody decodes a body read by readBody (see decodeBody).
func (h *handler) parseBody(r *http.Request, body []byte) (*object, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, newError(codeValidation, "request body is required: a JSON object")
	}
	raw, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	if p, path := scanBody(body); p != bodyOK {
		return nil, fieldsError([]fieldError{p.field(path)})
	}
	errs := []fieldError{}
	return &object{raw: raw, errs: &errs, v: versionOf(r.Context()), loc: h.loc, body: body}, nil
}

// decodeObject reads body as one JSON object into its members. A valid body that is an object, the usual case, is
// validated once (json.Valid) and split without a decoder (jsonsplit.go); anything else goes through the decoder,
// whose errors the answer quotes.
func decodeObject(body []byte) (map[string]json.RawMessage, error) {
	if start := skipSpace(body, 0); start < len(body) && body[start] == '{' && json.Valid(body) {
		return splitObject(body[start:]), nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, newError(codeFormat, "request body is not valid JSON: %s", jsonErrorText(err))
	}
	if raw == nil {
		return nil, newError(codeFormat, "request body must be a JSON object, not null")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, newError(codeFormat, "request body has data after the JSON object")
	}
	return raw, nil
}

func jsonErrorText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "expected a JSON object"
	}
	return err.Error()
}

func (o *object) fail(field, msg string) {
	*o.errs = append(*o.errs, fieldError{Field: o.prefix + field, Message: msg})
}
func (o *object) badFormat(field, msg string) {
	*o.errs = append(*o.errs, fieldError{Field: o.prefix + field, Message: msg, format: true})
}

// err returns the collected problems as one error, or nil.
func (o *object) err() error {
	if len(*o.errs) == 0 {
		return nil
	}
	return fieldsError(*o.errs)
}

// only rejects fields outside allowed, naming each. publishStatusCode gets the contract's reason.
func (o *object) only(allowed ...string) {
	unknown := false
	for k := range o.raw {
		unknown = unknown || !slices.Contains(allowed, k)
	}
	if !unknown {
		return // the usual case, without sorting the keys
	}
	for _, k := range slices.Sorted(maps.Keys(o.raw)) {
		switch {
		case slices.Contains(allowed, k):
		case k == "publishStatusCode":
			o.fail(k, "must not be sent; create and update always publish (PUBLISHED)")
		default:
			o.fail(k, "unknown field")
		}
	}
}

// has reports whether the field was sent, null included.
func (o *object) has(name string) bool { _, ok := o.raw[name]; return ok }

// null reports whether the field was sent as JSON null.
func (o *object) null(name string) bool {
	raw, ok := o.raw[name]
	return ok && bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// rawObject reads a value of a parsed body as an object's members; false when it is not an object.
func rawObject(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if len(raw) > 0 && raw[0] == '{' {
		return splitObject(raw), true // valid JSON: the body was parsed whole
	}
	return nil, false
}
