package api_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/syncbuf"
)

// leakCase is one request organization B makes with organization A's identifiers. path is relative to the version
// prefix and uses the fixture's placeholders; route is the chi pattern it exercises, so the test can tell when the
// route table grows a route nobody checked.
type leakCase struct {
	route    string // chi pattern below the version prefix, e.g. /programs/{programId}
	method   string
	path     string
	body     string
	upload   bool   // send a multipart image instead of body
	idem     bool   // send an Idempotency-Key header
	wantCode string // "" expects a success that shows only B's own data; else a 404 with this code
	empty    bool   // the success is a list that must be empty (B owns none of them)
	v3only   bool   // an extension route of v3 (webhooks)
}

// leakCases call every versioned route with B's manager key and A's ids.
var leakCases = []leakCase{
	{route: "/organization", method: http.MethodGet, path: "/organization"},
	{route: "/media-files/images", method: http.MethodPost, path: "/media-files/images", upload: true},

	{route: "/programs", method: http.MethodPost, path: "/programs", wantCode: "COM006",
		body: `{"name":"Steal","categoryCode":"EDUCATION","imageId":"{image}","badgeIds":["{badge}"]}`},
	{route: "/programs", method: http.MethodGet, path: "/programs"},
	{route: "/programs/{programId}", method: http.MethodGet, path: "/programs/{program}", wantCode: "PRG001"},
	{route: "/programs/{programId}", method: http.MethodPatch, path: "/programs/{program}", body: `{"name":"Hijacked"}`, wantCode: "PRG001"},
	{route: "/programs/{programId}", method: http.MethodDelete, path: "/programs/{program}", wantCode: "PRG001"},

	{route: "/badges", method: http.MethodPost, path: "/badges", wantCode: "COM006",
		body: `{"name":"Steal","description":"d","categoryCode":"COMPLETION","criteria":[{"category":"COMPLETION","value":"v"}],` +
			`"skills":[{"sourceType":"CUSTOM","skillName":"Go"}],"imageId":"{image}","programIds":["{program}"]}`},
	{route: "/badges", method: http.MethodGet, path: "/badges"},
	{route: "/badges", method: http.MethodGet, path: "/badges?programId={program}", empty: true},
	{route: "/badges/{badgeId}", method: http.MethodGet, path: "/badges/{badge}", wantCode: "BDG001"},
	{route: "/badges/{badgeId}", method: http.MethodPatch, path: "/badges/{badge}", body: `{"name":"Hijacked"}`, wantCode: "BDG001"},
	{route: "/badges/{badgeId}", method: http.MethodDelete, path: "/badges/{badge}", wantCode: "BDG001"},

	{route: "/badges/{badgeId}/issuances", method: http.MethodPost, path: "/badges/{badge}/issuances", idem: true,
		body:     `{"programId":"{program}","recipients":[{"name":"Mallory","email":"mallory@example.com","receiveType":"EMAIL"}]}`,
		wantCode: "BDG001"},
	{route: "/issuances/{issuanceId}", method: http.MethodGet, path: "/issuances/{issuance}", wantCode: "ISS001"},
	{route: "/badges/{badgeId}/stats", method: http.MethodGet, path: "/badges/{badge}/stats", wantCode: "BDG001", v3only: true},
	{route: "/issuances/{issuanceId}/stats", method: http.MethodGet, path: "/issuances/{issuance}/stats", wantCode: "ISS001", v3only: true},
	{route: "/programs/{programId}/stats", method: http.MethodGet, path: "/programs/{program}/stats", wantCode: "PRG001", v3only: true},
	{route: "/assertions/{assertionId}/stats", method: http.MethodGet, path: "/assertions/{assertion}/stats", wantCode: "AST001", v3only: true},

	{route: "/assertions", method: http.MethodGet, path: "/assertions", empty: true},
	{route: "/assertions", method: http.MethodGet, path: "/assertions?issuanceId={issuance}", empty: true},
	{route: "/assertions", method: http.MethodGet, path: "/assertions?email={email}", empty: true},
	{route: "/assertions", method: http.MethodGet, path: "/assertions?badgeId={badge}", empty: true},
	{route: "/assertions/{assertionId}", method: http.MethodGet, path: "/assertions/{assertion}", wantCode: "AST001"},
	{route: "/assertions/{assertionId}/cancel", method: http.MethodPost, path: "/assertions/{assertion}/cancel", wantCode: "AST001"},
	{route: "/assertions/{assertionId}/pdf", method: http.MethodGet, path: "/assertions/{assertion}/pdf", wantCode: "AST001"},
	{route: "/assertions/{assertionId}/reissue", method: http.MethodPost, path: "/assertions/{assertion}/reissue", idem: true, wantCode: "AST001"},
	{route: "/assertions/{assertionId}/renew", method: http.MethodPost, path: "/assertions/{assertion}/renew", idem: true, wantCode: "AST001", v3only: true},
	{route: "/badges/{badgeId}/renewals", method: http.MethodPost, path: "/badges/{badge}/renewals", idem: true,
		body: `{"assertionIds":["{assertion}"]}`, wantCode: "BDG001", v3only: true},
	{route: "/badges/{badgeId}/renewals/{renewalId}", method: http.MethodGet, path: "/badges/{badge}/renewals/{issuance}", wantCode: "ISS001", v3only: true},

	{route: "/assertions/{assertionId}/credential-offers", method: http.MethodPost, path: "/assertions/{assertion}/credential-offers",
		wantCode: "AST001", v3only: true},
	{route: "/assertions/{assertionId}/credential-offers/{offerId}", method: http.MethodDelete,
		path: "/assertions/{assertion}/credential-offers/{assertion}", wantCode: "AST041", v3only: true},
	{route: "/webhooks", method: http.MethodGet, path: "/webhooks", empty: true, v3only: true},
	{route: "/webhooks", method: http.MethodPost, path: "/webhooks", body: `{"url":"https://93.184.215.14/b"}`, v3only: true},
	{route: "/webhooks/{webhookId}", method: http.MethodDelete, path: "/webhooks/{webhook}", wantCode: "WHK001", v3only: true},
	{route: "/webhooks/{webhookId}/deliveries", method: http.MethodGet, path: "/webhooks/{webhook}/deliveries", wantCode: "WHK001", v3only: true},
	{route: "/webhooks/deliveries/{deliveryId}/redeliver", method: http.MethodPost, path: "/webhooks/deliveries/{delivery}/redeliver",
		wantCode: "WHK001", v3only: true},
}

// publicRoutes are the unversioned routes: they take no API key and show only what a credential holder may
// publish (health, media by unguessable id, issuer profiles, credentials, status lists), so organization scoping does
// not apply to them. A new unversioned route must be added here on purpose.
var publicRoutes = []string{
	"GET /healthz", "GET /readyz", "GET /media/{mediaID}/{variant}", "GET /issuers/{orgId}", "GET /issuers/{orgId}/test",
	// The service's page, and a badge's achievement id: the badge's page or its Achievement, live published badges
	// only (package catalog); the organization's page is GET /issuers/{orgId} asked for HTML.
	"GET ", "GET /achievements/{badgeId}", // "GET " is the root: the walk trims its slash
	"GET /credentials/{assertionId}", "GET /credentials/{assertionId}/image", "GET /credentials/{assertionId}/receipt",
	"GET /credentials/{assertionId}/status",          // what the badge page says, as JSON
	"GET /credentials/{assertionId}/certificate.pdf", // only with the assertion's random certificate token
	"GET /verify/{assertionId}",
	// The share buttons' counting redirect (page/share_redirect.go): 302 to a target built from the page's own facts, never
	// from the request; POST is the same count for a script's beacon.
	"GET /share/{assertionId}/{network}", "POST /share/{assertionId}/{network}",
	"GET /status-lists/{listId}",
	"GET /public/v2/openapi.json", "GET /public/v3/openapi.json", // the API description itself
	// OpenID4VCI (package wallet): issuer metadata and verification keys are public; the offer URI needs the
	// offer's random id, the credential and notification endpoints an access token bound to one offer.
	"GET /.well-known/openid-credential-issuer/issuers/{orgId}", "GET /.well-known/openid-credential-issuer/issuers/{orgId}/test",
	"GET /.well-known/oauth-authorization-server/issuers/{orgId}", "GET /.well-known/oauth-authorization-server/issuers/{orgId}/test",
	"GET /issuers/{orgId}/.well-known/openid-credential-issuer", "GET /issuers/{orgId}/test/.well-known/openid-credential-issuer",
	"GET /issuers/{orgId}/.well-known/oauth-authorization-server", "GET /issuers/{orgId}/test/.well-known/oauth-authorization-server",
	"GET /issuers/{orgId}/jwks", "GET /issuers/{orgId}/jwks/{kid}", "GET /issuers/{orgId}/test/jwks", "GET /issuers/{orgId}/test/jwks/{kid}",
	"GET /credentials/{assertionId}/preview.png", // the page's social preview: what the page shows (page/preview.go)
	// The issuance log (api/issuancelog.go): public by design, like the controller document whose key signs it;
	// entries name credential ids and digests only.
	"GET /issuers/{orgId}/log/checkpoint", "GET /issuers/{orgId}/log/tile/*",
	// The offer's landing page (mail and KakaoTalk link it) and its VC-API exchange: both need the offer's random id.
	"GET /oid4vci/offers/{offerId}/open", "POST /exchanges/{offerId}", "GET /exchanges/{offerId}/protocols",
	"GET /oid4vci/offers/{offerId}", "POST /oid4vci/token", "POST /oid4vci/nonce", "POST /oid4vci/credential", "POST /oid4vci/notification",
}

// TestLeak_RouteTableCovered fails when a route is added without a cross-organization case (or, for an
// unversioned route, a deliberate entry in publicRoutes).
func TestLeak_RouteTableCovered(t *testing.T) {
	covered := map[string]bool{}
	for _, v := range testVersions {
		for _, c := range leakCases {
			if !c.v3only || v == "v3" {
				covered[c.method+" /public/"+v+c.route] = true
			}
		}
	}
	for _, r := range publicRoutes {
		covered[r] = true
	}
	routes, ok := api.NewHandler(api.Deps{}).(chi.Routes)
	require.True(t, ok, "NewHandler no longer returns a chi router; walk its routes another way")
	var missing []string
	seen := 0
	require.NoError(t, chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(strings.ReplaceAll(route, "/*/", "/"), "/")
		seen++
		if !covered[method+" "+route] {
			missing = append(missing, method+" "+route)
		}
		return nil
	}))
	sort.Strings(missing)
	require.Empty(t, missing, "routes without a leak case")
	require.Greater(t, seen, 2*len(publicRoutes), "the walk found too few routes to be the real table")
}

// TestLeak_NoEndpointShowsAnotherOrganization gives organization A a full set of data (images, program, badge, an
// issuance with assertions) and calls every versioned route with organization B's key and A's ids. Each answer must
// be the same "not found" a random id gets (or a list of B's own rows only), and no response may contain any of A's
// ids, names or recipient data that B did not send itself. Afterwards A's data must be unchanged.
func TestLeak_NoEndpointShowsAnotherOrganization(t *testing.T) {
	f := newIssFixture(t)
	const email, recipient = "leaky.secret@example.com", "Leaky Recipient"
	iss := f.mustIssue(t, "v3", "{badge}", "manager", "leak-A",
		issuanceBody(f.vars["{program}"], rcpt(recipient, email), `{"name":"Second Secret","phoneNumber":"010-5555-7777","receiveType":"KAKAOTALK"}`))
	f.vars["{issuance}"] = jstr(t, iss, "id")
	f.vars["{email}"] = email
	list := f.mustOK(t, http.MethodGet, "/public/v3/assertions?issuanceId="+f.vars["{issuance}"], f.keys["viewer"], "")
	items, _ := list["items"].([]any)
	require.Len(t, items, 2)
	f.vars["{assertion}"] = jstr(t, items[0], "id")
	secondAssertion := jstr(t, items[1], "id")
	// A certificate PDF exists only for issued assertions: mark one issued so the pdf route would have a file to leak.
	_, err := f.d.Pool.Exec(t.Context(), "UPDATE assertions SET state = 'ISSUED', credential_key = 'credentials/a.json' WHERE id = $1",
		f.vars["{assertion}"])
	require.NoError(t, err)

	// A's webhook endpoint, with one delivery of an event.
	hook := f.mustOK(t, http.MethodPost, "/public/v3/webhooks", f.keys["manager"], `{"url":"https://93.184.215.14/a"}`)
	f.vars["{webhook}"], f.vars["{delivery}"] = jstr(t, hook, "id"), uuid.NewString()
	_, err = f.d.Pool.Exec(t.Context(), `INSERT INTO webhook_events (id, org_id, type, data) VALUES ('evt_leak', $1, 'assertion.revoked', '{}')`, f.org.ID)
	require.NoError(t, err)
	_, err = f.d.Pool.Exec(t.Context(), `INSERT INTO webhook_deliveries (id, event_id, endpoint_id) VALUES ($1, 'evt_leak', $2)`,
		f.vars["{delivery}"], f.vars["{webhook}"])
	require.NoError(t, err)

	// Everything of A's that B must never see unless B sent it in the request.
	secrets := []string{f.org.ID.String(), f.org.Name, f.vars["{image}"], f.vars["{image2}"], f.vars["{program}"],
		"Fixture program", f.vars["{badge}"], "Fixture badge", f.vars["{issuance}"], f.vars["{assertion}"],
		secondAssertion, recipient, email, "Second Secret", "+821055557777", f.keys["manager"], f.keys["viewer"],
		f.vars["{webhook}"], jstr(t, hook, "secret"), "https://93.184.215.14/a", "evt_leak"}

	for _, v := range testVersions {
		for _, c := range leakCases {
			if c.v3only && v != "v3" {
				continue
			}
			t.Run(v+" "+c.method+" "+c.path, func(t *testing.T) {
				path := "/public/" + v + f.expand(c.path)
				body := f.expand(c.body)
				r := f.leakRequest(t, c, v, path, body, f.keys["otherManager"])
				require.Less(t, r.Status, 500, "%s", r.Raw)
				for _, s := range secrets {
					if strings.Contains(path, s) || strings.Contains(body, s) {
						continue // B sent it; echoing it back (error.path, a message) tells B nothing new
					}
					require.NotContains(t, string(r.Raw), s, "the response shows organization A's data")
					require.NotContains(t, strings.Join(headerValues(r.Header), "\n"), s, "a header shows organization A's data")
				}
				switch {
				case c.wantCode != "":
					requireError(t, r, strings.SplitN(path, "?", 2)[0], statusFor(c.wantCode), c.wantCode)
					if statusFor(c.wantCode) == http.StatusNotFound {
						// A's id must get exactly the answer of an id that exists nowhere: no existence oracle.
						miss := strings.NewReplacer(f.vars["{program}"], f.vars["{missing}"], f.vars["{badge}"], f.vars["{missing}"],
							f.vars["{issuance}"], f.vars["{missing}"], f.vars["{assertion}"], f.vars["{missing}"],
							f.vars["{webhook}"], f.vars["{missing}"], f.vars["{delivery}"], f.vars["{missing}"]).Replace(path)
						rm := f.leakRequest(t, c, v, miss, body, f.keys["otherManager"])
						require.Equal(t, r.Status, rm.Status, "%s", rm.Raw)
						require.Equal(t, jget(t, r.Body, "error.code"), jget(t, rm.Body, "error.code"))
					}
				default:
					require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
					require.Equal(t, true, r.Body["success"], "%s", r.Raw)
					if c.empty {
						items, ok := jget(t, r.Body, "data.items").([]any)
						require.True(t, ok, "%s", r.Raw)
						require.Empty(t, items, "B sees rows filtered by A's ids")
					}
				}
			})
		}
	}

	// B's writes changed nothing of A's.
	prog := f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{program}"], f.keys["viewer"], "")
	require.Equal(t, "Fixture program", prog["name"])
	badge := f.mustOK(t, http.MethodGet, "/public/v3/badges/"+f.vars["{badge}"], f.keys["viewer"], "")
	require.Equal(t, "Fixture badge", badge["name"])
	a := f.mustOK(t, http.MethodGet, "/public/v3/assertions/"+f.vars["{assertion}"], f.keys["viewer"], "")
	require.Equal(t, "ISSUED", a["stateCode"], "B's cancel must not revoke A's assertion")
	require.Len(t, f.starter.calls(), 1, "B's issuance on A's badge must not start a workflow")
	require.Zero(t, countRows(t, f.d, "issuances", f.other), "B's issuance on A's badge must not be recorded")
}

// leakRequest sends one leak case as key.
func (f *issFixture) leakRequest(tb testing.TB, c leakCase, v, path, body, key string) response {
	tb.Helper()
	switch {
	case c.upload:
		return f.upload(tb, v, key, mustPNG(tb, 8, 8, false))
	case c.idem:
		return f.postIssuanceTo(tb, path, key, "leak-"+v, body)
	}
	return f.do(tb, c.method, path, key, body)
}

// statusFor is the contract's status of the error codes the leak cases expect.
func statusFor(code string) int {
	if code == "COM006" {
		return http.StatusBadRequest
	}
	return http.StatusNotFound
}

func headerValues(h http.Header) []string {
	var out []string
	for _, vs := range h {
		out = append(out, vs...)
	}
	return out
}

// TestLeak_NoKeyInLogs sends requests with valid, wrong, malformed and rate-limited keys through the handler with
// a debug-level logger and checks that no key text, nor the secret part of one, is ever logged.
func TestLeak_NoKeyInLogs(t *testing.T) {
	d := dbtest.New(t)
	store, err := blob.NewLocal(t.TempDir())
	require.NoError(t, err)
	var logs syncbuf.Buffer // the server goroutines write it while the test reads it
	srv := httptest.NewServer(validateContract(t, api.NewHandler(api.Deps{DB: d, Blob: store, PublicBaseURL: baseURL,
		RateLimit: api.RateLimit{PerSecond: 0.001, Burst: 4},
		Log:       slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})))
	e := &env{d: d, srv: srv}
	org := mustOrg(t, d, "Logged Org")
	key, row := mustKey(t, d, org, apikey.RoleManager)
	// The same key id with another secret: parses, then fails the hash comparison.
	wrong := key[:len(key)-4] + "AAAA"
	if wrong == key {
		wrong = key[:len(key)-4] + "BBBB"
	}
	revokedKey, revokedRow := mustKey(t, d, org, apikey.RoleViewer)
	_, err = d.Pool.Exec(t.Context(), "UPDATE api_keys SET revoked_at = now() WHERE id = $1", revokedRow.ID)
	require.NoError(t, err)

	for _, r := range []struct{ method, path, key, body string }{
		{http.MethodGet, "/public/v3/organization", key, ""},
		{http.MethodPost, "/public/v2/programs", key, `{"name":""}`},         // a validation error
		{http.MethodGet, "/public/v3/programs/not-a-uuid", key, ""},          // a format error
		{http.MethodGet, "/public/v3/badges/" + uuid.NewString(), key, ""},   // not found
		{http.MethodGet, "/public/v3/organization", wrong, ""},               // wrong secret
		{http.MethodGet, "/public/v3/organization", revokedKey, ""},          // revoked
		{http.MethodGet, "/public/v3/organization", "bdg_live_" + key, ""},   // malformed
		{http.MethodGet, "/public/v3/organization", key, ""},                 // 429 from here on
		{http.MethodGet, "/public/v3/organization?key=" + key[:12], key, ""}, // 429
	} {
		e.do(t, r.method, r.path, r.key, r.body)
	}
	srv.Close() // waits for the handlers, so every access-log line is written
	out := logs.String()
	require.Contains(t, out, `"status":429`, "the rate limit was reached, so its path is covered")
	require.Contains(t, out, `"status":401`)
	require.Contains(t, out, row.ID.String(), "the key id (not secret) is what identifies a key in the log")
	for name, k := range map[string]string{"key": key, "wrong": wrong, "revoked": revokedKey} {
		secret := strings.SplitN(k, "_", 4)[3]
		require.NotContains(t, out, k, "the %s key is logged", name)
		require.NotContains(t, out, secret, "the secret of the %s key is logged", name)
	}
}
