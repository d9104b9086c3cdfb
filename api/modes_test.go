package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
)

// The test-mode sandbox, route by route. The policy is written here again, independently of the route table in
// handler.go, and every route of both versions is called with a live and a test ORG_OWNER key:
//
//   - read: the shared configuration; both keys read it.
//   - live: changes the shared configuration; the test key gets 403 ORG004 and nothing changes.
//   - own:  issuances and assertions; each key acts on its own mode's only, and the other mode's ids answer
//     exactly as an unknown id (ISS001, AST001) while nothing of them changes.
//
// TestModes_EveryRouteHasACase fails when a route is added without a case here.

// modeCase is one operation. path is relative to the version prefix; {issuance}, {assertion} and {freshAssertion}
// (a new issued assertion for each request) name rows of the mode the request is about, {newProgram}, {newBadge}
// and {newWebhook} a new live configuration row for each request.
type modeCase struct {
	route, method, path, body string
	rule                      string // read, live or own
	missCode                  string // own routes naming a row of the mode: the code of another mode's id
	upload, idem, v3only      bool
	// ownStatus and ownCode: the answer of the key's own mode when it is not 200: 201 (an offer), or a refusal the
	// fixture's rows decide (no such offer: AST041).
	ownStatus int
	ownCode   string
}

var modeCases = []modeCase{
	{route: "/organization", method: http.MethodGet, path: "/organization", rule: "read"},
	{route: "/media-files/images", method: http.MethodPost, path: "/media-files/images", rule: "live", upload: true},

	{route: "/programs", method: http.MethodPost, path: "/programs", rule: "live",
		body: `{"name":"Sandbox program","categoryCode":"EDUCATION","imageId":"{image}"}`},
	{route: "/programs", method: http.MethodGet, path: "/programs", rule: "read"},
	{route: "/programs/{programId}", method: http.MethodGet, path: "/programs/{program}", rule: "read"},
	{route: "/programs/{programId}", method: http.MethodPatch, path: "/programs/{program}", rule: "live", body: `{"name":"Renamed program"}`},
	{route: "/programs/{programId}", method: http.MethodDelete, path: "/programs/{newProgram}", rule: "live"},

	{route: "/badges", method: http.MethodPost, path: "/badges", rule: "live",
		body: `{"name":"Sandbox badge","description":"d","categoryCode":"COMPLETION","criteria":[{"category":"COMPLETION","value":"v"}],` +
			`"skills":[{"sourceType":"CUSTOM","skillName":"Go"}],"imageId":"{image}","programIds":["{program}"]}`},
	{route: "/badges", method: http.MethodGet, path: "/badges", rule: "read"},
	{route: "/badges/{badgeId}", method: http.MethodGet, path: "/badges/{badge}", rule: "read"},
	{route: "/badges/{badgeId}", method: http.MethodPatch, path: "/badges/{badge}", rule: "live", body: `{"name":"Renamed badge"}`},
	{route: "/badges/{badgeId}", method: http.MethodDelete, path: "/badges/{newBadge}", rule: "live"},

	{route: "/badges/{badgeId}/issuances", method: http.MethodPost, path: "/badges/{badge}/issuances", rule: "own", idem: true,
		body: `{"programId":"{program}","recipients":[{"name":"Kim","email":"kim-{uniq}@example.com","receiveType":"EMAIL"}]}`},
	{route: "/issuances/{issuanceId}", method: http.MethodGet, path: "/issuances/{issuance}", rule: "own", missCode: "ISS001"},
	// Stats (v3 extension): each key reads its own mode's counters; the badge is shared, another mode's issuance is unknown.
	{route: "/badges/{badgeId}/stats", method: http.MethodGet, path: "/badges/{badge}/stats", rule: "own", v3only: true},
	{route: "/issuances/{issuanceId}/stats", method: http.MethodGet, path: "/issuances/{issuance}/stats", rule: "own", missCode: "ISS001", v3only: true},
	{route: "/programs/{programId}/stats", method: http.MethodGet, path: "/programs/{program}/stats", rule: "own", v3only: true},
	{route: "/assertions/{assertionId}/stats", method: http.MethodGet, path: "/assertions/{assertion}/stats", rule: "own", missCode: "AST001", v3only: true},
	{route: "/assertions", method: http.MethodGet, path: "/assertions", rule: "own"},
	{route: "/assertions/{assertionId}", method: http.MethodGet, path: "/assertions/{assertion}", rule: "own", missCode: "AST001"},
	{route: "/assertions/{assertionId}/cancel", method: http.MethodPost, path: "/assertions/{freshAssertion}/cancel", rule: "own", missCode: "AST001"},
	{route: "/assertions/{assertionId}/reissue", method: http.MethodPost, path: "/assertions/{freshAssertion}/reissue", rule: "own",
		missCode: "AST001", idem: true},
	{route: "/assertions/{assertionId}/pdf", method: http.MethodGet, path: "/assertions/{assertion}/pdf", rule: "own", missCode: "AST001"},
	{route: "/assertions/{assertionId}/credential-offers", method: http.MethodPost, path: "/assertions/{assertion}/credential-offers",
		rule: "own", missCode: "AST001", v3only: true, ownStatus: http.StatusCreated},
	{route: "/assertions/{assertionId}/credential-offers/{offerId}", method: http.MethodDelete,
		path: "/assertions/{assertion}/credential-offers/" + uuid.Nil.String(), rule: "own", missCode: "AST041", v3only: true,
		ownStatus: http.StatusNotFound, ownCode: "AST041"},
	{route: "/assertions/{assertionId}/renew", method: http.MethodPost, path: "/assertions/{freshAssertion}/renew", rule: "own",
		missCode: "AST001", idem: true, v3only: true},
	// The bulk renewal names its assertions in the body: another mode's id there is COM006 (TestRenewals_Refusals).
	{route: "/badges/{badgeId}/renewals", method: http.MethodPost, path: "/badges/{badge}/renewals", rule: "own", idem: true,
		body: `{"assertionIds":["{freshAssertion}"]}`, v3only: true},
	{route: "/badges/{badgeId}/renewals/{renewalId}", method: http.MethodGet, path: "/badges/{badge}/renewals/{renewal}", rule: "own",
		missCode: "ISS001", v3only: true},

	{route: "/webhooks", method: http.MethodGet, path: "/webhooks", rule: "read", v3only: true},
	{route: "/webhooks", method: http.MethodPost, path: "/webhooks", rule: "live", body: `{"url":"https://93.184.215.14/hook"}`, v3only: true},
	{route: "/webhooks/{webhookId}", method: http.MethodDelete, path: "/webhooks/{newWebhook}", rule: "live", v3only: true},
	{route: "/webhooks/{webhookId}/deliveries", method: http.MethodGet, path: "/webhooks/{webhook}/deliveries", rule: "read", v3only: true},
	{route: "/webhooks/deliveries/{deliveryId}/redeliver", method: http.MethodPost, path: "/webhooks/deliveries/{delivery}/redeliver",
		rule: "live", v3only: true},
}

// TestModes_EveryRouteHasACase fails when a versioned route has no mode case (and so no decided policy).
func TestModes_EveryRouteHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, v := range testVersions {
		for _, c := range modeCases {
			if !c.v3only || v == "v3" {
				covered[c.method+" /public/"+v+c.route] = true
			}
		}
	}
	routes, ok := api.NewHandler(api.Deps{}).(chi.Routes)
	require.True(t, ok)
	var missing []string
	seen := 0
	require.NoError(t, chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(strings.ReplaceAll(route, "/*/", "/"), "/")
		if !strings.HasPrefix(route, "/public/") || strings.HasSuffix(route, "/openapi.json") {
			return nil // unversioned routes take no key, so no mode (leak_test.go publicRoutes)
		}
		seen++
		if !covered[method+" "+route] {
			missing = append(missing, method+" "+route)
		}
		return nil
	}))
	sort.Strings(missing)
	require.Empty(t, missing, "versioned routes without a mode case")
	require.Equal(t, len(covered), seen, "a mode case names a route the router does not have")
}

// modeFixture is an organization with a live and a test ORG_OWNER key, an issued assertion of each mode (with
// its certificate stored), and a webhook endpoint with one delivery.
type modeFixture struct {
	*fixture
	store blob.Store
	keyOf map[string]string            // mode → ORG_OWNER key of that mode
	rows  map[string]map[string]string // mode → {issuance}, {assertion}
}

// fakeWebhooks records the redeliveries the API starts.
type fakeWebhooks struct {
	mu  sync.Mutex
	ids []uuid.UUID
}

func (w *fakeWebhooks) StartWebhookDelivery(_ context.Context, id uuid.UUID) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ids = append(w.ids, id)
	return nil
}

func newModeFixture(tb testing.TB) *modeFixture {
	tb.Helper()
	f := &modeFixture{fixture: newFixture(tb), rows: map[string]map[string]string{}}
	var err error
	f.store, err = blob.NewLocal(tb.TempDir())
	require.NoError(tb, err)
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(tb, err)
	ring, err := credential.NewKeyring("test:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	require.NoError(tb, err)
	// Real time: the database's now() decides whether an assertion can still be cancelled, and a test
	// assertion expires 30 days after the handler's clock.
	f.env = &env{d: f.d, srv: startServer(tb, api.NewHandler(api.Deps{
		DB: f.d, Blob: f.store, Location: seoul, PublicBaseURL: baseURL, Issuances: &fakeStarter{},
		Issuer: issuer.New(f.d, ring, baseURL), Webhooks: &fakeWebhooks{},
		Log: slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	}))}
	f.keyOf = map[string]string{apikey.ModeLive: f.keys["owner"],
		apikey.ModeTest: mustModeKey(tb, f.d, f.org, apikey.RoleOwner, apikey.ModeTest)}
	for _, mode := range []string{apikey.ModeLive, apikey.ModeTest} {
		iss, a := f.issue(tb, mode)
		f.rows[mode] = map[string]string{"{issuance}": iss, "{assertion}": a}
		_, b := f.issue(tb, mode)
		renewal := f.send(tb, modeCase{method: http.MethodPost, idem: true}, "/public/v3/badges/"+f.vars["{badge}"]+"/renewals",
			f.keyOf[mode], `{"assertionIds":["`+b+`"]}`)
		require.Equal(tb, http.StatusOK, renewal.Status, "%s", renewal.Raw)
		f.rows[mode]["{renewal}"] = jstr(tb, renewal.Body, "data.id")
	}
	// The badge image, as an upload would have stored it: the PDF certificate draws it.
	_, err = f.store.PutIfAbsent(context.Background(), issuer.MediaKey(f.vars["{image}"], "medium", "png"), mustPNG(tb, 64, 64, false), "image/png")
	require.NoError(tb, err)
	hook := f.mustOK(tb, http.MethodPost, "/public/v3/webhooks", f.keys["owner"], `{"url":"https://93.184.215.14/a"}`)
	f.vars["{webhook}"], f.vars["{delivery}"] = jstr(tb, hook, "id"), uuid.NewString()
	_, err = f.d.Pool.Exec(context.Background(), `INSERT INTO webhook_events (id, org_id, type, data) VALUES ('evt_mode', $1, 'assertion.revoked', '{}')`, f.org.ID)
	require.NoError(tb, err)
	_, err = f.d.Pool.Exec(context.Background(), `INSERT INTO webhook_deliveries (id, event_id, endpoint_id) VALUES ($1, 'evt_mode', $2)`,
		f.vars["{delivery}"], f.vars["{webhook}"])
	require.NoError(tb, err)
	return f
}

// issue issues one recipient with the key of mode and marks its assertion issued, as the pipeline would; it
// returns the issuance and assertion ids.
func (f *modeFixture) issue(tb testing.TB, mode string) (string, string) {
	tb.Helper()
	body := f.expand(`{"programId":"{program}","recipients":[` + rcpt("Lee", "lee-"+uuid.NewString()+"@example.com") + `]}`)
	r := f.send(tb, modeCase{method: http.MethodPost, idem: true}, "/public/v3/badges/"+f.vars["{badge}"]+"/issuances", f.keyOf[mode], body)
	require.Equal(tb, http.StatusOK, r.Status, "%s", r.Raw)
	iss := jstr(tb, r.Body, "data.id")
	var a string
	require.NoError(tb, f.d.Pool.QueryRow(context.Background(),
		"UPDATE assertions SET state = 'ISSUED', credential_key = 'credentials/x.json' WHERE issuance_id = $1 RETURNING id", iss).Scan(&a))
	return iss, a
}

// send sends one request of c.
func (f *modeFixture) send(tb testing.TB, c modeCase, path, key, body string) response {
	tb.Helper()
	switch {
	case c.upload:
		b, ct := multipartBody(tb, "image", "upload.png", mustPNG(tb, 8, 8, false))
		return f.doRaw(tb, c.method, path, key, ct, b)
	case c.idem:
		req, err := http.NewRequestWithContext(context.Background(), c.method, f.srv.URL+path, strings.NewReader(body))
		require.NoError(tb, err)
		req.Header.Set("X-API-KEY", key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "mode-"+uuid.NewString())
		return f.doReq(tb, req)
	}
	return f.do(tb, c.method, path, key, body)
}

// expandFor fills the placeholders of s with the rows of mode, creating the rows a request consumes.
func (f *modeFixture) expandFor(tb testing.TB, s, mode string) string {
	tb.Helper()
	fresh := map[string]func() string{
		"{freshAssertion}": func() string { _, a := f.issue(tb, mode); return a },
		"{newProgram}":     func() string { return f.mustProgram(tb, "owner", "Doomed program", f.vars["{image}"]) },
		"{newBadge}":       func() string { return f.mustBadge(tb, "owner", "Doomed badge", f.vars["{image}"]) },
		"{newWebhook}": func() string {
			return jstr(tb, f.mustOK(tb, http.MethodPost, "/public/v3/webhooks", f.keys["owner"], `{"url":"https://93.184.215.14/d"}`), "id")
		},
		"{uniq}": uuid.NewString,
	}
	for k, make := range fresh {
		if strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, make())
		}
	}
	for k, v := range f.rows[mode] {
		s = strings.ReplaceAll(s, k, v)
	}
	return f.expand(s)
}

// digest is one hash of everything either mode could change: configuration, issuances and assertions.
func (f *modeFixture) digest(tb testing.TB) string {
	tb.Helper()
	var s string
	require.NoError(tb, f.d.Pool.QueryRow(context.Background(), `SELECT md5(
		(SELECT coalesce(string_agg(p::text, '|' ORDER BY p.id), '') FROM programs p) ||
		(SELECT coalesce(string_agg(b::text, '|' ORDER BY b.id), '') FROM badges b) ||
		(SELECT coalesce(string_agg(m::text, '|' ORDER BY m.id), '') FROM media_files m) ||
		(SELECT coalesce(string_agg(w::text, '|' ORDER BY w.id), '') FROM webhook_endpoints w) ||
		(SELECT coalesce(string_agg(d::text, '|' ORDER BY d.id), '') FROM webhook_deliveries d) ||
		(SELECT coalesce(string_agg(i::text, '|' ORDER BY i.id), '') FROM issuances i) ||
		(SELECT coalesce(string_agg(a::text, '|' ORDER BY a.id), '') FROM assertions a) ||
		(SELECT coalesce(string_agg(l.bits::text, '|' ORDER BY l.id), '') FROM status_lists l))`).Scan(&s))
	return s
}

// TestModes_TestKeysStayInTheirSandbox calls every route of both versions with a live and a test ORG_OWNER key.
func TestModes_TestKeysStayInTheirSandbox(t *testing.T) {
	f := newModeFixture(t)
	other := map[string]string{apikey.ModeLive: apikey.ModeTest, apikey.ModeTest: apikey.ModeLive}
	for _, v := range testVersions {
		for _, c := range modeCases {
			if c.v3only && v != "v3" {
				continue
			}
			for _, mode := range []string{apikey.ModeTest, apikey.ModeLive} {
				key := f.keyOf[mode]
				t.Run(v+" "+c.method+" "+c.route+" "+mode, func(t *testing.T) {
					if c.missCode != "" {
						// Another mode's row: the answer of an id that exists nowhere, and it stays as it was.
						path := "/public/" + v + f.expandFor(t, c.path, other[mode])
						body := f.expandFor(t, c.body, other[mode])
						before := f.digest(t)
						r := f.send(t, c, path, key, body)
						requireError(t, r, path, http.StatusNotFound, c.missCode)
						require.Equal(t, before, f.digest(t), "a %s key changed a %s row", mode, other[mode])
						for _, id := range []string{f.rows[other[mode]]["{issuance}"], f.rows[other[mode]]["{assertion}"]} {
							path = strings.ReplaceAll(path, id, uuid.NewString())
						}
						miss := f.send(t, c, path, key, body)
						require.Equal(t, r.Status, miss.Status, "%s", miss.Raw)
						require.Equal(t, jget(t, r.Body, "error.code"), jget(t, miss.Body, "error.code"))
					}
					path := "/public/" + v + f.expandFor(t, c.path, mode)
					body := f.expandFor(t, c.body, mode)
					before := f.digest(t)
					r := f.send(t, c, path, key, body)
					if c.rule == "live" && mode == apikey.ModeTest {
						requireError(t, r, path, http.StatusForbidden, "ORG004")
						require.Contains(t, jstr(t, r.Body, "error.message"), "test-mode key cannot change live configuration")
						require.Equal(t, before, f.digest(t), "a test key changed live configuration")
						return
					}
					if c.ownCode != "" {
						requireError(t, r, path, c.ownStatus, c.ownCode)
						require.Equal(t, before, f.digest(t))
						return
					}
					if c.ownStatus != 0 {
						require.Equal(t, c.ownStatus, r.Status, "%s", r.Raw)
						require.Equal(t, true, r.Body["success"], "%s", r.Raw)
						return
					}
					require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
					if c.route == "/assertions/{assertionId}/pdf" {
						require.True(t, bytes.HasPrefix(r.Raw, []byte("%PDF-")), "the certificate of the key's own assertion")
						return
					}
					require.Equal(t, true, r.Body["success"], "%s", r.Raw)
					f.requireOwn(t, c, mode, r)
				})
			}
		}
	}
	live := f.mustOK(t, http.MethodGet, "/public/v3/assertions/"+f.rows[apikey.ModeLive]["{assertion}"], f.keyOf[apikey.ModeLive], "")
	require.Equal(t, "ISSUED", live["stateCode"], "the test key's cancels did not revoke the live assertion")
}

// requireOwn checks what a successful answer on an own-mode route shows: the key's mode's rows only.
func (f *modeFixture) requireOwn(t *testing.T, c modeCase, mode string, r response) {
	t.Helper()
	otherRows := f.rows[apikey.ModeLive]
	if mode == apikey.ModeLive {
		otherRows = f.rows[apikey.ModeTest]
	}
	for _, id := range otherRows {
		require.NotContains(t, string(r.Raw), id, "a %s key sees a row of the other mode", mode)
	}
	var created string
	switch c.route {
	case "/assertions":
		items, ok := jget(t, r.Body, "data.items").([]any)
		require.True(t, ok, "%s", r.Raw)
		if mode == apikey.ModeTest {
			require.Empty(t, items, "test assertions are never listed, and a test key lists no live ones")
		} else {
			require.NotEmpty(t, items)
		}
		return
	case "/badges/{badgeId}/issuances":
		created = jstr(t, r.Body, "data.id")
	case "/assertions/{assertionId}/reissue", "/assertions/{assertionId}/renew", "/badges/{badgeId}/renewals":
		created = jstr(t, r.Body, "data.id")
	case "/assertions/{assertionId}/cancel":
		require.Equal(t, "REVOKED", jstr(t, r.Body, "data.stateCode"))
		return
	default:
		return
	}
	var got string
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT mode FROM issuances WHERE id = $1", created).Scan(&got))
	require.Equal(t, mode, got, "a %s key's issuance is of its own mode", mode)
}

// doReq sends a prepared request and decodes the answer as doRaw does.
func (f *modeFixture) doReq(tb testing.TB, req *http.Request) response {
	tb.Helper()
	res, err := f.srv.Client().Do(req)
	require.NoError(tb, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// TestModes_LegacyTestCredentialsWithdrawn runs migration 0014 over test credentials signed the way they were
// before test mode had its own issuer: their status bits are set and the issued ones turn REVOKED with a reason,
// while a live credential, and a test one still in the pipeline (no credential yet), stay as they were.
func TestModes_LegacyTestCredentialsWithdrawn(t *testing.T) {
	f := newModeFixture(t)
	ctx := context.Background()
	is := issuer.New(f.d, nil, baseURL)
	_, pending := f.issue(t, apikey.ModeTest)
	_, err := f.d.Pool.Exec(ctx, "UPDATE assertions SET state = 'PROCESSING' WHERE id = $1", pending)
	require.NoError(t, err)
	entries := map[string]issuer.StatusEntry{}
	for _, id := range []string{f.rows[apikey.ModeLive]["{assertion}"], f.rows[apikey.ModeTest]["{assertion}"], pending} {
		a, err := f.d.GetAssertionByID(ctx, uuid.MustParse(id))
		require.NoError(t, err)
		got, err := is.AllocateStatuses(ctx, []db.Assertion{a})
		require.NoError(t, err)
		entries[id] = got[a.ID]
		if id != pending {
			_, err = f.d.Pool.Exec(ctx, "UPDATE assertions SET credential_sha256 = '\\x01' WHERE id = $1", id)
			require.NoError(t, err)
		}
	}
	sql, err := os.ReadFile("../db/migrations/0014_withdraw_legacy_test_credentials.sql")
	require.NoError(t, err)
	_, err = f.d.Pool.Exec(ctx, string(sql))
	require.NoError(t, err)

	bit := func(id string) bool {
		e := entries[id]
		l, err := f.d.GetStatusList(ctx, e.List)
		require.NoError(t, err)
		return l.Bits[e.Index/8]&(0x80>>(e.Index%8)) != 0
	}
	test := f.mustOK(t, http.MethodGet, "/public/v3/assertions/"+f.rows[apikey.ModeTest]["{assertion}"], f.keyOf[apikey.ModeTest], "")
	require.Equal(t, "REVOKED", test["stateCode"])
	require.True(t, bit(f.rows[apikey.ModeTest]["{assertion}"]), "the legacy test credential's status bit")
	live := f.mustOK(t, http.MethodGet, "/public/v3/assertions/"+f.rows[apikey.ModeLive]["{assertion}"], f.keyOf[apikey.ModeLive], "")
	require.Equal(t, "ISSUED", live["stateCode"])
	require.False(t, bit(f.rows[apikey.ModeLive]["{assertion}"]))
	require.False(t, bit(pending), "a test assertion not signed yet is signed by the test issuer later")
	st := f.do(t, http.MethodGet, "/credentials/"+f.rows[apikey.ModeTest]["{assertion}"]+"/status", "", "")
	require.Equal(t, http.StatusOK, st.Status, "%s", st.Raw)
	require.Equal(t, "REVOKED", st.Body["state"])
	require.Contains(t, st.Body["revocationReason"], "never a real badge")
}
