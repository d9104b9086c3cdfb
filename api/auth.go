package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
)

// principal is who calls: the key's organization, role and mode.
type principal struct {
	OrgID   uuid.UUID
	OrgName string
	KeyID   uuid.UUID
	Role    string
	// Mode is the key's mode. Only the route table's mode rule reads it (modes.go); handlers act on the scope it
	// grants (scopeOf).
	Mode string
}

type principalKey struct{}

func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// authenticate resolves X-API-KEY to a principal. Missing, malformed, unknown and revoked keys all get the same
// 401 SEC065, so the answer tells an attacker nothing about which keys exist.
func (h *handler) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimSpace(r.Header.Get("X-API-KEY"))
		if key == "" {
			h.writeError(w, r, newError(codeAuth, "the X-API-KEY header is required"))
			return
		}
		id, err := apikey.Parse(key)
		if err != nil {
			h.writeError(w, r, newError(codeAuth, "the API key is invalid or revoked"))
			return
		}
		row, err := h.apiKey(r.Context(), id)
		if db.IsNotFound(err) || (err == nil && (!apikey.Matches(key, row.KeyHash) || row.RevokedAt != nil)) {
			h.writeError(w, r, newError(codeAuth, "the API key is invalid or revoked"))
			return
		}
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		h.keyUse.touch(r.Context(), h.db, row.ID, time.Now())
		p := principal{OrgID: row.OrgID, OrgName: row.OrgName, KeyID: row.ID, Role: row.Role, Mode: row.Mode}
		setLogAttrs(r.Context(), "orgId", p.OrgID.String(), "keyId", p.KeyID.String())
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

// require lets the request through when the key's role is at least min (403 ORG004 otherwise).
func (h *handler) require(min string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if apikey.RoleRank(principalOf(r.Context()).Role) < apikey.RoleRank(min) {
				h.writeError(w, r, newError(codeRole, "this operation needs the %s role or higher", min))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// apiKey reads the row of key id through the key cache, or from the database when the cache is off.
func (h *handler) apiKey(ctx context.Context, id uuid.UUID) (db.GetAPIKeyRow, error) {
	if h.keys == nil {
		return h.db.GetAPIKey(ctx, id)
	}
	return h.keys.get(ctx, id)
}

// forgetKey makes this process read key id again on its next request (the console revoked it).
func (h *handler) forgetKey(id uuid.UUID) {
	if h.keys != nil {
		h.keys.forget(id)
	}
}
