package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/badged/badged/console"
)

// consoleActions are the API operations the console performs on one assertion, by the console's name for them.
// They run through the API's own route entries (role, mode rule, handler), so the console's cancel and reissue
// are the API's, with its rules and error codes, not a copy.
var consoleActions = map[string]string{"cancel": "/assertions/{assertionId}/cancel", "reissue": "/assertions/{assertionId}/reissue"}

// consoleAssertions returns the console's hook for consoleActions: a router of just those routes, behind a
// principal the console vouches for (a signed-in member, their role, the assertion's mode) instead of a key.
func (h *handler) consoleAssertions() console.AssertionAction {
	r := chi.NewRouter()
	r.Route(v3.prefix(), func(r chi.Router) {
		r.Use(versionMiddleware(v3))
		for _, rt := range routes {
			for _, pattern := range consoleActions {
				if rt.pattern == pattern && rt.method == http.MethodPost {
					fn := rt.fn
					r.With(h.require(rt.role), h.modePolicy(rt.method, rt.pattern, rt.mode)).
						Method(rt.method, rt.pattern, h.handle(func(w http.ResponseWriter, r *http.Request) error { return fn(h, w, r) }))
				}
			}
		}
	})
	return func(ctx context.Context, who console.Principal, assertion uuid.UUID, action string) (console.ActionResult, error) {
		pattern, ok := consoleActions[action]
		if !ok {
			return console.ActionResult{Status: http.StatusNotFound}, nil
		}
		path := v3.prefix() + strings.Replace(pattern, "{assertionId}", assertion.String(), 1)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, path, http.NoBody)
		if err != nil {
			return console.ActionResult{}, err
		}
		p := principal{OrgID: who.Org, OrgName: who.OrgName, Role: who.Role, Mode: who.Mode}
		// One reissue per original from the console: a form sent twice gets the first answer (the API's idempotency).
		req.Header.Set("Idempotency-Key", "console-"+action+"-"+assertion.String())
		// A fresh routing context: the console's own (in ctx) would route this request by the console's path.
		rctx := context.WithValue(context.WithValue(req.Context(), chi.RouteCtxKey, chi.NewRouteContext()), principalKey{}, p)
		req = req.WithContext(rctx)
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		res := console.ActionResult{Status: rec.Code}
		var body struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if rec.Code >= 300 && json.Unmarshal(rec.Body.Bytes(), &body) == nil {
			res.Code, res.Message = body.Error.Code, body.Error.Message
		}
		return res, nil
	}
}
