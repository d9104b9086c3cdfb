package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Asia/Seoul must load on machines without a zoneinfo database

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/media"
)

// baseURL is the PublicBaseURL of every test handler; image URLs in responses start with it.
const baseURL = apitest.BaseURL

// fixedNow is the handler clock: it shows in error timestamps only (rows take the database's now()).
var fixedNow = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)

// testVersions are the two mounted API versions; shared behaviour is checked on both.
var testVersions = []string{"v2", "v3"}

// env is one test's API server over its own fresh database.
type env struct {
	d   *db.DB
	srv *httptest.Server
}

// newEnv starts the handler on a fresh migrated database. limits may set media.Limits (zero value = defaults).
func newEnv(tb testing.TB, limits ...media.Limits) *env {
	tb.Helper()
	d := dbtest.New(tb)
	store, err := blob.NewLocal(tb.TempDir())
	require.NoError(tb, err)
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(tb, err)
	deps := api.Deps{
		DB: d, Blob: store, Location: seoul, PublicBaseURL: baseURL,
		// Warnings and errors (a 500's cause) go to the test output; the access log is dropped.
		Log:   slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
		Clock: func() time.Time { return fixedNow },
	}
	if len(limits) > 0 {
		deps.MediaLimits = limits[0]
	}
	return &env{d: d, srv: startServer(tb, api.NewHandler(deps))}
}

// startServer serves h as cmd/badged does: net/http's own header limit well above the API's, and the listener
// that gives net/http's own error answers the contract's body.
func startServer(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	srv := httptest.NewUnstartedServer(validateContract(tb, h))
	srv.Config.MaxHeaderBytes = api.ServerMaxHeaderBytes
	srv.Listener = api.GuardListener(srv.Listener, nil)
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv
}

// response is a decoded answer of the server.
type response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any // nil when the body is not a JSON object
}

// doRaw sends a request with any body and content type; key "" sends no X-API-KEY header.
func (e *env) doRaw(tb testing.TB, method, path, key, contentType string, body io.Reader) response {
	tb.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, e.srv.URL+path, body)
	require.NoError(tb, err)
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := e.srv.Client().Do(req)
	require.NoError(tb, err, "%s %s", method, path)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(raw, &out.Body)
	}
	return out
}

// do sends a JSON request; body "" sends no body.
func (e *env) do(tb testing.TB, method, path, key, body string) response {
	tb.Helper()
	if body == "" {
		return e.doRaw(tb, method, path, key, "", nil)
	}
	return e.doRaw(tb, method, path, key, "application/json", strings.NewReader(body))
}

// mustOK sends a JSON request that must succeed and returns its data object.
func (e *env) mustOK(tb testing.TB, method, path, key, body string) map[string]any {
	tb.Helper()
	r := e.do(tb, method, path, key, body)
	require.Equal(tb, http.StatusOK, r.Status, "%s %s: %s", method, path, r.Raw)
	require.Equal(tb, true, r.Body["success"], "%s", r.Raw)
	require.Contains(tb, r.Body, "message")
	data, ok := r.Body["data"].(map[string]any)
	require.True(tb, ok, "data is not an object: %s", r.Raw)
	return data
}

// requireError checks the contract's error body: success false and an error object with exactly timestamp, code,
// message, status, path and errors, path being the request path and errors an array. Each wantField must be named
// by an entry of error.errors.
func requireError(tb testing.TB, r response, path string, status int, code string, wantFields ...string) {
	tb.Helper()
	require.Less(tb, r.Status, 500, "server error: %s", r.Raw)
	require.Equal(tb, status, r.Status, "body: %s", r.Raw)
	require.NotNil(tb, r.Body, "error body is not a JSON object: %q", r.Raw)
	require.ElementsMatch(tb, []string{"success", "error"}, keys(r.Body), "%s", r.Raw)
	require.Equal(tb, false, r.Body["success"])
	e, ok := r.Body["error"].(map[string]any)
	require.True(tb, ok, "error is not an object: %s", r.Raw)
	require.ElementsMatch(tb, []string{"timestamp", "code", "message", "status", "path", "errors"}, keys(e), "%s", r.Raw)
	require.Equal(tb, code, e["code"], "%s", r.Raw)
	require.NotEmpty(tb, e["message"])
	require.IsType(tb, "", e["message"])
	require.Equal(tb, float64(status), e["status"])
	require.Equal(tb, path, e["path"])
	ts, _ := e["timestamp"].(string)
	require.NotEmpty(tb, ts)
	errs, ok := e["errors"].([]any)
	require.True(tb, ok, "error.errors is not an array: %s", r.Raw)
	got := errorFields(r)
	for _, f := range wantFields {
		require.Contains(tb, got, f, "error.errors does not name %s: %s", f, r.Raw)
	}
	for _, fe := range errs {
		m, ok := fe.(map[string]any)
		require.True(tb, ok)
		require.NotEmpty(tb, m["field"])
		require.NotEmpty(tb, m["message"])
	}
}

// errorFields lists the field of every error.errors entry.
func errorFields(r response) []string {
	e, _ := r.Body["error"].(map[string]any)
	errs, _ := e["errors"].([]any)
	out := []string{}
	for _, fe := range errs {
		if m, ok := fe.(map[string]any); ok {
			s, _ := m["field"].(string)
			out = append(out, s)
		}
	}
	return out
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// jget walks a decoded JSON value along a dotted path; numeric segments index arrays.
func jget(tb testing.TB, v any, path string) any {
	tb.Helper()
	return apitest.JGet(tb, v, path)
}

func jstr(tb testing.TB, v any, path string) string {
	tb.Helper()
	return apitest.JStr(tb, v, path)
}

// jstrings reads an array of strings.
func jstrings(tb testing.TB, v any, path string) []string {
	tb.Helper()
	arr, ok := jget(tb, v, path).([]any)
	require.True(tb, ok, "jget %s is not an array: %v", path, jget(tb, v, path))
	out := make([]string, len(arr))
	for i, x := range arr {
		out[i], ok = x.(string)
		require.True(tb, ok)
	}
	return out
}

// mustOrg creates an organization.
func mustOrg(tb testing.TB, d *db.DB, name string) db.Organization {
	tb.Helper()
	org, err := d.CreateOrganization(context.Background(), db.CreateOrganizationParams{ID: uuid.New(), Name: name, Credits: 100})
	require.NoError(tb, err)
	return org
}

// mustKey creates a live API key of role for org and returns its full text and row.
func mustKey(tb testing.TB, d *db.DB, org db.Organization, role string) (string, db.ApiKey) {
	tb.Helper()
	return apitest.Key(tb, d, org, role, apikey.ModeLive)
}

// mustImageRow records a media file of org without storing bytes: enough for an imageId reference.
func mustImageRow(tb testing.TB, d *db.DB, org db.Organization) string {
	tb.Helper()
	m, err := d.CreateMediaFile(context.Background(), db.CreateMediaFileParams{ID: uuid.New(), OrgID: org.ID,
		ContentType: media.ContentTypePNG, Ext: "png", Width: 4, Height: 4, SizeBytes: 100})
	require.NoError(tb, err)
	return m.ID.String()
}

// countRows counts the rows of table (a fixed name of the schema) of org.
func countRows(tb testing.TB, d *db.DB, table string, org db.Organization) int {
	tb.Helper()
	var n int
	err := d.Pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table+" WHERE org_id = $1", org.ID).Scan(&n)
	require.NoError(tb, err)
	return n
}

// fixture is an organization with keys of every role, images, a program and a badge linked to each other, plus a
// second organization with its own rows for the cross-organization cases.
type fixture struct {
	*env
	org, other db.Organization
	keys       map[string]string // viewer, manager, owner, otherManager
	vars       map[string]string // placeholders of case paths and bodies: {image}, {program}, ...
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	e := newEnv(tb)
	f := &fixture{env: e, org: mustOrg(tb, e.d, "Acme Academy"), other: mustOrg(tb, e.d, "Other Org"),
		keys: map[string]string{}, vars: map[string]string{}}
	f.keys["viewer"], _ = mustKey(tb, e.d, f.org, apikey.RoleViewer)
	f.keys["manager"], _ = mustKey(tb, e.d, f.org, apikey.RoleManager)
	f.keys["owner"], _ = mustKey(tb, e.d, f.org, apikey.RoleOwner)
	f.keys["otherManager"], _ = mustKey(tb, e.d, f.other, apikey.RoleManager)
	f.vars["{image}"] = mustImageRow(tb, e.d, f.org)
	f.vars["{image2}"] = mustImageRow(tb, e.d, f.org)
	f.vars["{otherImage}"] = mustImageRow(tb, e.d, f.other)
	f.vars["{otherProgram}"] = f.mustProgram(tb, "otherManager", "Other program", f.vars["{otherImage}"])
	f.vars["{otherBadge}"] = f.mustBadge(tb, "otherManager", "Other badge", f.vars["{otherImage}"], f.vars["{otherProgram}"])
	f.vars["{program}"] = f.mustProgram(tb, "manager", "Fixture program", f.vars["{image}"])
	f.vars["{badge}"] = f.mustBadge(tb, "manager", "Fixture badge", f.vars["{image}"], f.vars["{program}"])
	f.vars["{missing}"] = uuid.NewString()
	return f
}

// expand replaces the fixture's placeholders in s.
func (f *fixture) expand(s string) string {
	for k, v := range f.vars {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

// mustProgram creates a minimal program through the API and returns its id.
func (f *fixture) mustProgram(tb testing.TB, key, name, imageID string) string {
	tb.Helper()
	data := f.mustOK(tb, http.MethodPost, "/public/v3/programs", f.keys[key],
		`{"name":`+quote(name)+`,"categoryCode":"EDUCATION","imageId":"`+imageID+`"}`)
	return jstr(tb, data, "id")
}

// mustBadge creates a badge through the API, linked to programIDs, and returns its id.
func (f *fixture) mustBadge(tb testing.TB, key, name, imageID string, programIDs ...string) string {
	tb.Helper()
	data := f.mustOK(tb, http.MethodPost, "/public/v3/badges", f.keys[key], badgeBody(name, imageID, programIDs...))
	return jstr(tb, data, "id")
}

// badgeBody is a valid create body with one criterion and one CUSTOM skill.
func badgeBody(name, imageID string, programIDs ...string) string {
	ids, _ := json.Marshal(append([]string{}, programIDs...))
	return `{"name":` + quote(name) + `,"description":"Awarded on completion","categoryCode":"COMPLETION",` +
		`"criteria":[{"category":"COMPLETION","value":"Finish all modules"}],` +
		`"skills":[{"sourceType":"CUSTOM","skillName":"Go"}],"imageId":"` + imageID + `","programIds":` + string(ids) + `}`
}

// overlay returns the JSON object base with the fields of extra set over it.
func overlay(tb testing.TB, base, extra string) string {
	tb.Helper()
	var b, e map[string]json.RawMessage
	require.NoError(tb, json.Unmarshal([]byte(base), &b), base)
	require.NoError(tb, json.Unmarshal([]byte(extra), &e), extra)
	maps.Copy(b, e)
	out, err := json.Marshal(b)
	require.NoError(tb, err)
	return string(out)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// apiCase is one request of a table test. path is relative to the version prefix; placeholders of the fixture are
// expanded in path and body. key names a fixture key; a value that is not a fixture key name is sent as is, "" sends
// none. version "" runs the case on both v2 and v3.
type apiCase struct {
	name       string
	version    string
	method     string
	path       string
	body       string
	key        string
	wantStatus int
	wantCode   string   // error.code; "" for a success
	wantFields []string // fields that error.errors must name
}

// run executes the cases, each once per version it applies to. No case may produce a 5xx.
func (f *fixture) run(t *testing.T, cases []apiCase) {
	t.Helper()
	for _, tc := range cases {
		for _, v := range testVersions {
			if tc.version != "" && tc.version != v {
				continue
			}
			t.Run(tc.name+"/"+v, func(t *testing.T) {
				path := "/public/" + v + f.expand(tc.path)
				key := tc.key
				if k, ok := f.keys[key]; ok {
					key = k
				}
				r := f.do(t, tc.method, path, key, f.expand(tc.body))
				require.Less(t, r.Status, 500, "server error: %s", r.Raw)
				if tc.wantCode == "" {
					require.Equal(t, tc.wantStatus, r.Status, "body: %s", r.Raw)
					require.Equal(t, true, r.Body["success"], "%s", r.Raw)
					return
				}
				requireError(t, r, strings.SplitN(path, "?", 2)[0], tc.wantStatus, tc.wantCode, tc.wantFields...)
			})
		}
	}
}

// testImage is a small gradient; noisy makes it incompressible, so a PNG of it is large.
func testImage(w, h int, noisy bool) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	seed := uint32(1)
	for y := range h {
		for x := range w {
			c := color.NRGBA{R: uint8(x * 7), G: uint8(y * 5), B: uint8(x ^ y), A: 255}
			if noisy {
				seed = seed*1664525 + 1013904223
				c.R, c.G, c.B = uint8(seed>>24), uint8(seed>>16), uint8(seed>>8)
			}
			m.SetNRGBA(x, y, c)
		}
	}
	return m
}

func mustPNG(tb testing.TB, w, h int, noisy bool) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, png.Encode(&buf, testImage(w, h, noisy)))
	return buf.Bytes()
}

func mustJPEG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, jpeg.Encode(&buf, testImage(w, h, false), &jpeg.Options{Quality: 90}))
	return buf.Bytes()
}

func mustGIF(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, gif.Encode(&buf, testImage(w, h, false), nil))
	return buf.Bytes()
}

const testSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">` +
	`<circle cx="32" cy="32" r="30" fill="#2a6"/></svg>`

// multipartBody builds a multipart/form-data body with one file part.
func multipartBody(tb testing.TB, field, filename string, data []byte) (io.Reader, string) {
	tb.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile(field, filename)
	require.NoError(tb, err)
	_, err = part.Write(data)
	require.NoError(tb, err)
	require.NoError(tb, w.Close())
	return &buf, w.FormDataContentType()
}

// upload posts an image as the part "image".
func (e *env) upload(tb testing.TB, version, key string, data []byte) response {
	tb.Helper()
	body, ct := multipartBody(tb, "image", "upload.bin", data)
	return e.doRaw(tb, http.MethodPost, "/public/"+version+"/media-files/images", key, ct, body)
}
