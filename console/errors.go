package console

import (
	"errors"
	"net/http"

	"github.com/badged/badged/internal/membership"
	"github.com/badged/badged/internal/pagekit"
)

// pageError is an error the console answers with its own status and message key (text.go).
type pageError struct {
	status int
	msg    string
}

func (e *pageError) Error() string { return e.msg }

var (
	errNotFound  = &pageError{http.StatusNotFound, "notFound"}
	errForbidden = &pageError{http.StatusForbidden, "forbidden"}
	errCSRF      = &pageError{http.StatusForbidden, "csrf"}
	errNoOrg     = &pageError{http.StatusForbidden, "noOrg"}
)

// ErrRedriveRefused marks a re-drive refused with its reason (nothing retryable, one running, credits short): the
// console answers 409 with the reason, not 500. The function that re-drives for the console wraps it.
var ErrRedriveRefused = errors.New("re-drive refused")

// badInput is a 400 whose message key says what is wrong with the form.
func badInput(msg string) error { return &pageError{http.StatusBadRequest, msg} }

// fail answers err as a one-message page; errors the console does not know are logged and answer 500.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var pe *pageError
	var refusal *apiRefusal
	switch {
	case errors.As(err, &refusal):
		h.noticeText(w, r, refusal.status, refusal.code, refusal.message)
		return
	case errors.As(err, &pe):
	case errors.Is(err, ErrRedriveRefused):
		h.noticeText(w, r, http.StatusConflict, text[pagekit.PickLang(r)]["redriveRefused"], err.Error())
		return
	case errors.Is(err, membership.ErrLastOwner):
		pe = &pageError{http.StatusConflict, "lastOwner"}
	case errors.Is(err, membership.ErrNotMember):
		pe = errNotFound
	case errors.Is(err, membership.ErrBadEmail):
		pe = &pageError{http.StatusBadRequest, "badEmail"}
	case errors.Is(err, membership.ErrBadRole):
		pe = &pageError{http.StatusBadRequest, "badRole"}
	default:
		h.log.Error("console", "path", r.URL.Path, "err", err)
		pe = &pageError{http.StatusInternalServerError, "internal"}
	}
	h.notice(w, r, pe.status, pe.msg)
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.notice(w, r, http.StatusNotFound, "notFound")
}
