package api

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/badged/badged/internal/apikey"
)

// modeRule says what a key of each mode (live, test) may do on a route. Every route of the versioned API names one
// in the route table (handler.go), and modePolicy enforces it before the handler runs: the decision is made there,
// once per operation, never in a handler. The README's "Test mode" table lists the rule of every operation.
//
// A test key is a sandbox. Issuances and assertions belong to the mode of the key that made them, and a key
// reads, cancels and reissues only its own mode's: the other mode's ids answer exactly as another organization's
// (ISS001, AST001), so a test key can neither read nor revoke a live credential, nor a live key a test one. The
// organization's configuration (programs, badges, media, webhooks) is shared: a test issuance uses the live
// badges, so a test key reads it, but only a live key changes it.
type modeRule int

const (
	// noRule is the zero value: a route without a rule is a mistake, and registering it panics.
	noRule modeRule = iota
	// sandboxed: the route reads or writes issuances or assertions; the handler sees only the key's own mode's,
	// through scopeOf.
	sandboxed
	// sharedRead: the route reads the shared configuration (organization, programs, badges, webhook endpoints
	// and their delivery log); either mode may.
	sharedRead
	// liveWrite: the route changes the shared configuration (programs, badges, image uploads, webhooks); a test
	// key gets 403 ORG004.
	liveWrite
)

// String names the rule as the README's table does.
func (m modeRule) String() string {
	switch m {
	case sandboxed:
		return "own mode only"
	case sharedRead:
		return "read shared configuration"
	case liveWrite:
		return "live key only"
	}
	return "no rule"
}

// scope is what a sandboxed route acts on: the key's organization and mode. Only modePolicy sets it, so a handler
// cannot reach issuances or assertions on a route the table did not mark sandboxed.
type scope struct {
	Org  uuid.UUID
	Mode string
}

// live reports whether the scope is the live one.
func (s scope) live() bool { return s.Mode == apikey.ModeLive }

type scopeKey struct{}

// scopeOf returns the scope modePolicy set for a sandboxed route. Called on any other route it fails (a 500 with
// the cause logged): the route table and the handler disagree, and guessing a scope could cross modes.
func scopeOf(ctx context.Context) (scope, error) {
	s, ok := ctx.Value(scopeKey{}).(scope)
	if !ok {
		return scope{}, fmt.Errorf("route without the sandboxed mode rule reads issuances or assertions")
	}
	return s, nil
}

// modePolicy enforces rule for the authenticated key (after h.authenticate and h.require). It panics on noRule,
// when the route table is built, so that a route cannot be added without a decision.
func (h *handler) modePolicy(method, pattern string, rule modeRule) func(http.Handler) http.Handler {
	if rule == noRule {
		panic(fmt.Sprintf("api: route %s %s has no mode rule (modes.go)", method, pattern))
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := principalOf(r.Context())
			switch rule {
			case liveWrite:
				if p.Mode != apikey.ModeLive {
					h.writeError(w, r, newError(codeRole,
						"a test-mode key cannot change live configuration (programs, badges, images, webhooks): use a live key"))
					return
				}
			case sandboxed:
				r = r.WithContext(context.WithValue(r.Context(), scopeKey{}, scope{Org: p.OrgID, Mode: p.Mode}))
			}
			next.ServeHTTP(w, r)
		})
	}
}
