// Package web holds what the keyed API (package api), the public badge page (package page) and the wallet protocols
// (package wallet) answer with: the not-found error of a public route, a stored artifact streamed to the client, the
// strict UUID of a path, which assertions have a credential to serve, the state a reader sees, and the client a
// request came from (client.go). It imports db and internal/blob, never api, page or wallet, so all three can import
// it.
package web

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/blob"
)

// NotFoundError is a 404 of a public route. api's error funnel answers it with the contract's error body
// (NOT_FOUND) and this message, as it answers its own not-found errors.
type NotFoundError struct{ Msg string }

func (e *NotFoundError) Error() string { return "not found: " + e.Msg }

// NotFound is a NotFoundError with the formatted message.
func NotFound(format string, args ...any) error {
	return &NotFoundError{Msg: fmt.Sprintf(format, args...)}
}

// IssuedStates are the states in which an assertion's credential exists and is served. A REISSUED credential is
// still served: its status bit is set, so verifiers see it was withdrawn, and its page says it was replaced.
var IssuedStates = []db.AssertionState{db.AssertionIssued, db.AssertionReceived, db.AssertionExpired, db.AssertionRevoked,
	db.AssertionReissued}

// Issued reports whether a's credential was issued and is served: it was signed and stored, and a is in one of
// IssuedStates.
func Issued(a db.Assertion) bool {
	return a.CredentialKey != nil && slices.Contains(IssuedStates, db.AssertionState(a.State))
}

// EffectiveState is the state a reader sees: an issued assertion past its expiry is EXPIRED even before the
// expiry job has rewritten the row.
func EffectiveState(state string, expiredAt *time.Time, now time.Time) db.AssertionState {
	s := db.AssertionState(state)
	if (s == db.AssertionIssued || s == db.AssertionReceived) && expiredAt != nil && !expiredAt.After(now) {
		return db.AssertionExpired
	}
	return s
}

// NegotiatedVary is the Vary of a URL that answers JSON or the HTML page by Accept, the page in the language
// Accept-Language picks.
const NegotiatedVary = "Accept, Accept-Language"

// ParseUUID accepts only the canonical 36-character form, as the contract's identifiers are (uuid.Parse alone
// also takes the braced, urn:uuid: and 32-digit forms).
func ParseUUID(s string) (uuid.UUID, error) {
	if len(s) != 36 {
		return uuid.Nil, errors.New("not a UUID")
	}
	return uuid.Parse(s)
}

// ServeBlob streams a stored artifact. disposition, when set, names a download. A missing object is NotFound.
func ServeBlob(w http.ResponseWriter, r *http.Request, store blob.Store, log *slog.Logger, key, contentType, disposition string) error {
	rc, info, err := store.Get(r.Context(), key)
	if errors.Is(err, blob.ErrNotFound) {
		err = NotFound("the artifact is not stored")
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.FormatInt(info.Size, 10))
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	if disposition != "" {
		w.Header().Set("Content-Disposition", disposition)
	}
	if _, err := io.Copy(w, rc); err != nil {
		log.WarnContext(r.Context(), "serve artifact", "key", key, "err", err)
	}
	return nil
}
