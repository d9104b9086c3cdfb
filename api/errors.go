package api

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/badged/badged/internal/web"
)

// Error codes the API returns: every one is here, and statusOf below gives its HTTP status. Assertion errorCodes
// live in internal/errcode.
const (
	codeFormat           = "COM002"
	codeValidation       = "COM006"
	codeSort             = "COM020"
	codeAuth             = "SEC065"
	codeRole             = "ORG004"
	codeProgramNotFound  = "PRG001"
	codeBadgeNotFound    = "BDG001"
	codeIssuanceNotFound = "ISS001"
	codeAssertionMissing = "AST001"
	codeWebhookNotFound  = "WHK001" // webhook endpoint or delivery (v3 extension)
	codeTimeRange        = "AST008"
	codeFilterConflictV2 = "AST023" // version.recipientFilterConflict picks one
	codeFilterConflictV3 = "AST024"
	codeCancelState      = "AST022"
	codeOfferState       = "AST040" // v3: a credential offer for an assertion that is not ISSUED or RECEIVED, or not signed yet
	codeOfferMissing     = "AST041" // v3: no such credential offer of the assertion
	codeIdempotencyKey   = "ISS056"
	codeIdemConflict     = "ISS057"
	codeIssuedAtFormat   = "ISS058" // v3
	codeIssuedAtFuture   = "ISS059" // v3
	codeExpiryPast       = "ISS061" // v3
	codeFixedExpiry      = "BDG064"
	codeNoCredits        = "PAY054"
	codeNotFound         = "NOT_FOUND"          // no such route; the contract has no code for it
	codeMethod           = "METHOD_NOT_ALLOWED" // route exists, method does not
	codeInternal         = "INTERNAL_SERVER_ERROR"
	codeTooMany          = "TOO_MANY_REQUESTS" // the key's rate limit is used up
	codeCORS             = "CORS_NOT_ALLOWED"  // a browser's preflight to the keyed API (cors.go)
)

// statusOf is the one table from error code to HTTP status (DESIGN.md "HTTP statuses").
func statusOf(code string) int {
	switch code {
	case codeAuth:
		return http.StatusUnauthorized
	case codeRole, codeCORS:
		return http.StatusForbidden
	case codeProgramNotFound, codeBadgeNotFound, codeIssuanceNotFound, codeAssertionMissing, codeWebhookNotFound, codeNotFound, codeOfferMissing:
		return http.StatusNotFound
	case codeMethod:
		return http.StatusMethodNotAllowed
	case codeIdemConflict, codeCancelState, codeOfferState:
		return http.StatusConflict
	case codeNoCredits:
		return http.StatusPaymentRequired
	case codeTooMany:
		return http.StatusTooManyRequests
	case codeInternal:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// fieldError is one entry of error.errors: which field and why.
type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	format  bool   // a type/format problem (COM002) rather than a rule violation (COM006)
}

// apiError is an error the client caused or may see; every handler failure is turned into one by writeError.
type apiError struct {
	status int
	code   string
	msg    string
	fields []fieldError
}

func (e *apiError) Error() string { return e.code + ": " + e.msg }

func newError(code, format string, args ...any) *apiError {
	return &apiError{status: statusOf(code), code: code, msg: fmt.Sprintf(format, args...)}
}

// fieldsError turns collected field problems into one error: COM002 when any is a format problem, else COM006.
// The message names every field, so a client that only logs the message still sees what to fix.
func fieldsError(fields []fieldError) *apiError {
	code := codeValidation
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		if f.format {
			code = codeFormat
		}
		parts = append(parts, f.Field+": "+f.Message)
	}
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].Field < fields[j].Field })
	return &apiError{status: statusOf(code), code: code, msg: strings.Join(parts, "; "), fields: fields}
}

type errorBody struct {
	Success bool        `json:"success"`
	Error   errorDetail `json:"error"`
}

type errorDetail struct {
	Timestamp string       `json:"timestamp"`
	Code      string       `json:"code"`
	Message   string       `json:"message"`
	Status    int          `json:"status"`
	Path      string       `json:"path"`
	Errors    []fieldError `json:"errors"`
}

// writeError is the one funnel from an error to the contract's error body. Errors that are not *apiError are
// internal: they are logged with the request id and answered with a generic 500 that leaks nothing.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	var nf *web.NotFoundError
	if errors.As(err, &nf) { // a public route's 404 (the badge page's preview and certificate, a stored artifact)
		ae = newError(codeNotFound, "%s", nf.Msg)
	}
	if ae == nil && !errors.As(err, &ae) {
		h.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "route", routePattern(r), "err", err)
		ae = newError(codeInternal, "internal error; the request id in the X-Request-Id header identifies it in the logs")
	}
	if ae.status == http.StatusRequestEntityTooLarge {
		drainBody(w, r)
	}
	fields := ae.fields
	if fields == nil {
		fields = []fieldError{}
	}
	writeJSON(w, h.log, ae.status, errorBody{Error: errorDetail{
		Timestamp: requestVersion(r).formatTime(h.now(), h.loc),
		Code:      ae.code,
		Message:   ae.msg,
		Status:    ae.status,
		Path:      r.URL.Path,
		Errors:    fields,
	}})
}

func (h *handler) now() time.Time { return h.clock() }
