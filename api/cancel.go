package api

import (
	"bytes"
	"net/http"
)

// Cancel bodies: {"reason": "..."} or nothing. The reason shows on the public badge page and in the status JSON.
const (
	maxCancelBody   = 8 << 10
	maxCancelReason = 500 // characters
)

// readCancelReason reads the optional body of a cancel. An empty body (today's clients) or a blank or null reason
// means none; anything else goes through the body reader's checks (JSON object, NUL and UTF-8, unknown fields).
func (h *handler) readCancelReason(w http.ResponseWriter, r *http.Request) (*string, error) {
	body, err := readBody(w, r, maxCancelBody)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return nil, err
	}
	o, err := h.parseBody(r, body)
	if err != nil {
		return nil, err
	}
	o.only("reason")
	reason := o.text("reason", textRule{nullable: true, max: maxCancelReason, blankOK: true, multiline: true})
	if err := o.err(); err != nil {
		return nil, err
	}
	if !reason.Set || reason.Null || reason.Val == "" {
		return nil, nil
	}
	return &reason.Val, nil
}
