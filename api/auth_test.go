package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
)

func TestHealth(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/healthz", "/readyz"} {
		t.Run(path, func(t *testing.T) {
			r := e.do(t, http.MethodGet, path, "", "")
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
			require.Equal(t, "ok", r.Body["status"])
		})
	}
}

func TestAuthentication(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()

	revoked, row := mustKey(t, f.d, f.org, apikey.RoleOwner)
	_, err := f.d.RevokeAPIKey(ctx, row.ID)
	require.NoError(t, err)
	unknown, _, err := apikey.New(uuid.New(), apikey.ModeLive) // well formed, never stored
	require.NoError(t, err)
	// The id of a stored key with another secret: the hash comparison must refuse it.
	manager := f.keys["manager"]
	wrongSecret := manager[:strings.LastIndex(manager, "_")+1] + strings.Repeat("A", 43)
	require.NotEqual(t, manager, wrongSecret)

	keys := map[string]string{
		"missing":      "",
		"malformed":    "not-a-key",
		"almost":       "bdg_live_0123_short",
		"unknown":      unknown,
		"wrong secret": wrongSecret,
		"revoked":      revoked,
	}
	routes := []struct{ method, path, body string }{
		{http.MethodGet, "/organization", ""},
		{http.MethodGet, "/programs", ""},
		{http.MethodGet, "/programs/{program}", ""},
		{http.MethodPost, "/programs", `{"name":"x","categoryCode":"EDUCATION","imageId":"{image}"}`},
		{http.MethodDelete, "/badges/{badge}", ""},
		{http.MethodPost, "/media-files/images", ""},
	}
	var cases []apiCase
	for name, key := range keys {
		for _, rt := range routes {
			cases = append(cases, apiCase{name: name + " " + rt.method + " " + rt.path, method: rt.method, path: rt.path,
				body: rt.body, key: key, wantStatus: http.StatusUnauthorized, wantCode: "SEC065"})
		}
	}
	f.run(t, cases)

	t.Run("revoked key leaves the rows alone", func(t *testing.T) {
		f.mustOK(t, http.MethodGet, "/public/v3/badges/"+f.vars["{badge}"], f.keys["viewer"], "")
	})
	t.Run("error timestamp in the version's form", func(t *testing.T) {
		r := f.do(t, http.MethodGet, "/public/v2/organization", "", "")
		require.Equal(t, "2025-03-01T09:00:00", jstr(t, r.Body, "error.timestamp"))
		r = f.do(t, http.MethodGet, "/public/v3/organization", "", "")
		require.Equal(t, "2025-03-01T00:00:00Z", jstr(t, r.Body, "error.timestamp"))
	})
}

// TestAuthentication_SecretWithUnderscore: apikey.New makes a key whose base64url secret may contain "_", and
// apikey.Parse (internal/apikey/apikey.go, strings.Split(key, "_") then len(parts) != 4) refuses it, so about half of
// all keys issued by `badged` never authenticate. This test fails until apikey splits on at most 4 parts.
func TestAuthentication_SecretWithUnderscore(t *testing.T) {
	e := newEnv(t)
	org := mustOrg(t, e.d, "Underscore Org")
	var key string
	var id uuid.UUID
	for {
		id = uuid.New()
		k, hash, err := apikey.New(id, apikey.ModeLive)
		require.NoError(t, err)
		secret := k[len("bdg_live_")+32+1:] // after the prefix, the 32 hex digits of the id and their separator
		if !strings.Contains(secret, "_") {
			continue
		}
		_, err = e.d.CreateAPIKey(context.Background(), db.CreateAPIKeyParams{ID: id, OrgID: org.ID, KeyHash: hash,
			Role: apikey.RoleViewer, Mode: apikey.ModeLive})
		require.NoError(t, err)
		key = k
		break
	}
	r := e.do(t, http.MethodGet, "/public/v3/organization", key, "")
	require.Equal(t, http.StatusOK, r.Status,
		"BUG (internal/apikey): a key made by apikey.New whose secret contains '_' is refused: %s", r.Raw)
}

func TestOrganization(t *testing.T) {
	f := newFixture(t)
	for _, role := range []string{"viewer", "manager", "owner"} {
		for _, v := range testVersions {
			t.Run(role+"/"+v, func(t *testing.T) {
				data := f.mustOK(t, http.MethodGet, "/public/"+v+"/organization", f.keys[role], "")
				require.Equal(t, map[string]any{
					"id": f.org.ID.String(), "name": "Acme Academy", "roleCode": "ORG_" + strings.ToUpper(role),
				}, data)
			})
		}
	}
	t.Run("other organization's key sees its own organization", func(t *testing.T) {
		data := f.mustOK(t, http.MethodGet, "/public/v3/organization", f.keys["otherManager"], "")
		require.Equal(t, f.other.ID.String(), data["id"])
		require.Equal(t, "ORG_MANAGER", data["roleCode"])
	})
}

// TestRoles: a viewer reads everything and changes nothing; managers and owners change.
func TestRoles(t *testing.T) {
	f := newFixture(t)
	program := `{"name":"P","categoryCode":"EDUCATION","imageId":"{image}"}`
	badge := badgeBody("B", "{image}")

	reads := []apiCase{
		{name: "organization", method: http.MethodGet, path: "/organization"},
		{name: "list programs", method: http.MethodGet, path: "/programs"},
		{name: "get program", method: http.MethodGet, path: "/programs/{program}"},
		{name: "list badges", method: http.MethodGet, path: "/badges"},
		{name: "get badge", method: http.MethodGet, path: "/badges/{badge}"},
	}
	writes := []apiCase{
		{name: "create program", method: http.MethodPost, path: "/programs", body: program},
		{name: "patch program", method: http.MethodPatch, path: "/programs/{program}", body: `{"name":"renamed"}`},
		{name: "delete program", method: http.MethodDelete, path: "/programs/{program}"},
		{name: "create badge", method: http.MethodPost, path: "/badges", body: badge},
		{name: "patch badge", method: http.MethodPatch, path: "/badges/{badge}", body: `{"name":"renamed"}`},
		{name: "delete badge", method: http.MethodDelete, path: "/badges/{badge}"},
		{name: "upload image", method: http.MethodPost, path: "/media-files/images", body: `{}`},
		// The role is checked before the id or the body is looked at.
		{name: "patch missing program", method: http.MethodPatch, path: "/programs/{missing}", body: `{}`},
		{name: "delete bad id", method: http.MethodDelete, path: "/badges/nope"},
	}
	var cases []apiCase
	for _, c := range reads {
		for _, role := range []string{"viewer", "manager", "owner"} {
			c.name, c.key, c.wantStatus = role+" "+c.name, role, http.StatusOK
			cases = append(cases, c)
		}
	}
	for _, c := range writes {
		c.name, c.key, c.wantStatus, c.wantCode = "viewer "+c.name, "viewer", http.StatusForbidden, "ORG004"
		cases = append(cases, c)
	}
	f.run(t, cases)

	t.Run("viewer changed nothing", func(t *testing.T) {
		data := f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{program}"], f.keys["viewer"], "")
		require.Equal(t, "Fixture program", data["name"])
		require.Equal(t, 2, countRows(t, f.d, "programs", f.org)+countRows(t, f.d, "programs", f.other))
		require.Equal(t, 2, countRows(t, f.d, "media_files", f.org))
	})

	for _, role := range []string{"manager", "owner"} {
		for _, v := range testVersions {
			t.Run(role+" writes/"+v, func(t *testing.T) {
				key, base := f.keys[role], "/public/"+v
				up := f.upload(t, v, key, mustPNG(t, 8, 8, false))
				require.Equal(t, http.StatusOK, up.Status, "%s", up.Raw)
				img := jstr(t, up.Body, "data.id")
				p := jstr(t, f.mustOK(t, http.MethodPost, base+"/programs", key,
					`{"name":"P","categoryCode":"EDUCATION","imageId":"`+img+`"}`), "id")
				f.mustOK(t, http.MethodPatch, base+"/programs/"+p, key, `{"name":"P2"}`)
				b := jstr(t, f.mustOK(t, http.MethodPost, base+"/badges", key, badgeBody("B", img, p)), "id")
				f.mustOK(t, http.MethodPatch, base+"/badges/"+b, key, `{"name":"B2"}`)
				require.Equal(t, map[string]any{"id": b, "deleted": true},
					f.mustOK(t, http.MethodDelete, base+"/badges/"+b, key, ""))
				require.Equal(t, map[string]any{"id": p, "deleted": true},
					f.mustOK(t, http.MethodDelete, base+"/programs/"+p, key, ""))
			})
		}
	}
}

// TestDefaultLocation: Deps.Location documents "default Asia/Seoul" (api/handler.go, Deps), but NewHandler falls
// back to time.UTC when it is nil, so a v2 local time would be read as UTC. cmd/badged always sets it; the test
// holds the handler to its documented default.
func TestDefaultLocation(t *testing.T) {
	d := dbtest.New(t)
	store, err := blob.NewLocal(t.TempDir())
	require.NoError(t, err)
	srv := httptest.NewServer(validateContract(t, api.NewHandler(api.Deps{DB: d, Blob: store, PublicBaseURL: baseURL,
		Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})))
	t.Cleanup(srv.Close)
	e := &env{d: d, srv: srv}
	org := mustOrg(t, d, "Default zone")
	key, _ := mustKey(t, d, org, apikey.RoleManager)
	img := mustImageRow(t, d, org)
	data := e.mustOK(t, http.MethodPost, "/public/v2/programs", key,
		`{"name":"P","categoryCode":"EDUCATION","imageId":"`+img+`","startsAt":"2025-03-01T09:00:00"}`)
	v3 := e.mustOK(t, http.MethodGet, "/public/v3/programs/"+jstr(t, data, "id"), key, "")
	require.Equal(t, "2025-03-01T00:00:00Z", v3["startsAt"],
		"BUG (api/handler.go NewHandler): with Deps.Location nil, v2 times are read in UTC, not the documented Asia/Seoul")
}

// TestAuthentication_KeyCache: with KeyCacheTTL a key row is reused, and a revocation takes effect once the row
// read before it is older than the TTL, never later.
func TestAuthentication_KeyCache(t *testing.T) {
	d := dbtest.New(t)
	store, err := blob.NewLocal(t.TempDir())
	require.NoError(t, err)
	const ttl = 300 * time.Millisecond
	h := validateContract(t, api.NewHandler(api.Deps{DB: d, Blob: store, PublicBaseURL: baseURL, KeyCacheTTL: ttl,
		Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))}))
	key, row := mustKey(t, d, mustOrg(t, d, "Cache Org"), apikey.RoleViewer)
	get := func() int {
		req := httptest.NewRequestWithContext(context.Background(), http.MethodGet, "/public/v3/organization", nil)
		req.Header.Set("X-API-KEY", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	readBefore := time.Now()
	require.Equal(t, http.StatusOK, get()) // reads and caches the row
	_, err = d.RevokeAPIKey(context.Background(), row.ID)
	require.NoError(t, err)
	for get() == http.StatusOK {
		require.Less(t, time.Since(readBefore), ttl+time.Second, "a revoked key still works well past the TTL")
		time.Sleep(10 * time.Millisecond)
	}
	require.GreaterOrEqual(t, time.Since(readBefore), ttl, "refused before the cached row expired: the cache was not used")
	require.Equal(t, http.StatusUnauthorized, get())
}
