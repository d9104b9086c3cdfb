// Package apitest starts the whole HTTP API (api.NewHandler, served as cmd/badged serves it) over a fresh database,
// for the tests of what api mounts (package wallet): two organizations with keys, and assertions issued through
// the API and signed the way the pipeline's sign step signs them. It also holds the tests' JSON walkers.
//
// It may import api, db, db/dbtest and the domain libraries under internal/; only tests import it.
package apitest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Asia/Seoul must load on machines without a zoneinfo database

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/console"
	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/internal/media"
)

// BaseURL is the PublicBaseURL of the servers New starts: the URLs in their answers start with it (Env.Local turns
// one into a URL of the test server).
const BaseURL = "http://badged.test"

// Now is the handler clock: late enough that the issue date IssueSigned gives (2025-02-09) is in the past and its
// one-month expiry is still ahead, as the API's issuance rules ask.
var Now = time.Date(2025, 2, 10, 0, 0, 0, 0, time.UTC)

// issuedAt is the issue date of IssueSigned's assertions.
const issuedAt = "2025-02-09T16:30:00Z"

// Env is one test's API server over its own fresh database, with an issuer service (a test sealing key) and a
// local store the test may write to.
type Env struct {
	DB     *db.DB
	Srv    *httptest.Server
	Store  blob.Store
	Issuer *issuer.Service
	// Org is the organization of the fixture; Other is a second one, for cross-organization cases.
	Org, Other db.Organization
	// Keys are live API keys: "viewer" and "manager" of Org, "otherManager" of Other.
	Keys    map[string]string
	deps    api.Deps
	program string // a program of Org
	badge   string // a badge of Org in program, expiring one month after issue
}

// New starts the API on a fresh migrated database and creates the organizations, keys, a program and a badge.
func New(tb testing.TB) *Env {
	tb.Helper()
	d := dbtest.New(tb)
	store, err := blob.NewLocal(tb.TempDir())
	require.NoError(tb, err)
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(tb, err)
	ring, err := credential.NewKeyring("test:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	require.NoError(tb, err)
	e := &Env{DB: d, Store: store, Issuer: issuer.New(d, ring, BaseURL), Keys: map[string]string{}}
	e.deps = api.Deps{DB: d, Blob: store, Location: seoul, PublicBaseURL: BaseURL, Issuer: e.Issuer,
		Clock: func() time.Time { return Now }, Issuances: noWorkflows{},
		// Warnings and errors (a 500's cause) go to the test output; the access log is dropped.
		Log: slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))}
	e.Srv = e.Server(tb)

	ctx := context.Background()
	e.Org, err = d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: uuid.New(), Name: "Acme Academy", Credits: 100})
	require.NoError(tb, err)
	e.Other, err = d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: uuid.New(), Name: "Other Org", Credits: 100})
	require.NoError(tb, err)
	e.Keys["viewer"], _ = Key(tb, d, e.Org, apikey.RoleViewer, apikey.ModeLive)
	e.Keys["manager"], _ = Key(tb, d, e.Org, apikey.RoleManager, apikey.ModeLive)
	e.Keys["otherManager"], _ = Key(tb, d, e.Other, apikey.RoleManager, apikey.ModeLive)
	img, err := d.CreateMediaFile(ctx, db.CreateMediaFileParams{ID: uuid.New(), OrgID: e.Org.ID,
		ContentType: media.ContentTypePNG, Ext: "png", Width: 4, Height: 4, SizeBytes: 100})
	require.NoError(tb, err)
	e.program = JStr(tb, e.MustOK(tb, http.MethodPost, "/public/v3/programs", e.Keys["manager"],
		`{"name":"Fixture program","categoryCode":"EDUCATION","imageId":"`+img.ID.String()+`"}`), "id")
	e.badge = JStr(tb, e.MustOK(tb, http.MethodPost, "/public/v3/badges", e.Keys["manager"],
		`{"name":"Team lead","description":"Awarded on completion","categoryCode":"COMPLETION",`+
			`"criteria":[{"category":"COMPLETION","value":"Finish all modules"}],"skills":[{"sourceType":"CUSTOM","skillName":"Go"}],`+
			`"imageId":"`+img.ID.String()+`","programIds":["`+e.program+`"],"expirationPolicy":{"relativeExpirationMonths":1}}`), "id")
	return e
}

// Program and Badge are the ids of the fixture's program and of its badge (in that program).
func (e *Env) Program() string { return e.program }
func (e *Env) Badge() string   { return e.badge }

// Server starts another API server on the Env's database, store and issuer keys, as a second API process of one
// deployment would run: what one answers from the database, the other must too.
func (e *Env) Server(tb testing.TB) *httptest.Server {
	tb.Helper()
	return e.ServerWith(tb, nil)
}

// ServerWith is Server with the dependencies as edit changes them (a sign-in mailer for the earner's pages).
func (e *Env) ServerWith(tb testing.TB, edit func(*api.Deps)) *httptest.Server {
	tb.Helper()
	deps := e.deps
	if edit != nil {
		edit(&deps)
	}
	srv := httptest.NewUnstartedServer(api.NewHandler(deps))
	srv.Config.MaxHeaderBytes = api.ServerMaxHeaderBytes
	srv.Listener = api.GuardListener(srv.Listener, nil)
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv
}

// ConsoleServer starts another API server on the Env's database with the console mounted at /console, signed in
// through signIn, and API keys cached for a minute.
func (e *Env) ConsoleServer(tb testing.TB, signIn console.SignIn) *httptest.Server {
	tb.Helper()
	deps := e.deps
	deps.Console = signIn
	deps.KeyCacheTTL = time.Minute // a revocation in the console must end the key at once even through the cache
	srv := httptest.NewServer(api.NewHandler(deps))
	tb.Cleanup(srv.Close)
	return srv
}

// noWorkflows starts nothing: the test signs the assertions itself (IssueSigned).
type noWorkflows struct{}

func (noWorkflows) StartIssuance(context.Context, db.Issuance) error { return nil }

// Key creates an API key of role and mode for org and returns its full text and row.
func Key(tb testing.TB, d *db.DB, org db.Organization, role, mode string) (string, db.ApiKey) {
	tb.Helper()
	for {
		id := uuid.New()
		key, hash, err := apikey.New(id, mode)
		require.NoError(tb, err)
		// apikey.New draws the secret from the base64url alphabet, which contains "_", the separator that
		// apikey.Parse splits on: about half of its keys cannot be parsed. Draw until the key parses.
		if _, perr := apikey.Parse(key); perr != nil {
			continue
		}
		row, err := d.CreateAPIKey(context.Background(), db.CreateAPIKeyParams{ID: id, OrgID: org.ID, KeyHash: hash, Role: role, Mode: mode})
		require.NoError(tb, err)
		return key, row
	}
}

// IssueSigned issues the badge to one recipient through the API (v3, issued on 2025-02-09) and gives the assertion
// what the pipeline would: its status list entry and its signed credential, with the recipient's name; the
// assertion is RECEIVED and valid for a year from now, so it can be offered to a wallet whatever the pinned clock.
func (e *Env) IssueSigned(tb testing.TB, name, email string) uuid.UUID {
	tb.Helper()
	rcpt, err := json.Marshal(map[string]string{"name": name, "email": email, "receiveType": "EMAIL"})
	require.NoError(tb, err)
	r := e.Request(tb, http.MethodPost, "/public/v3/badges/"+e.badge+"/issuances", e.Keys["manager"],
		`{"recipients":[`+string(rcpt)+`],"programId":"`+e.program+`","issuedAt":"`+issuedAt+`"}`,
		http.Header{"Idempotency-Key": {uuid.NewString()}})
	require.Equal(tb, http.StatusOK, r.Status, "%s", r.Raw)
	iss := JStr(tb, r.Body, "data.id")
	ctx := context.Background()
	var id uuid.UUID
	require.NoError(tb, e.DB.Pool.QueryRow(ctx, "SELECT id FROM assertions WHERE issuance_id = $1", uuid.MustParse(iss)).Scan(&id))
	_, err = e.DB.Pool.Exec(ctx, "UPDATE assertions SET expired_at = now() + interval '1 year' WHERE id = $1", id)
	require.NoError(tb, err)
	a, err := e.DB.GetBadgePage(ctx, id)
	require.NoError(tb, err)
	_, err = e.Issuer.AllocateStatuses(ctx, []db.Assertion{a.Assertion})
	require.NoError(tb, err)
	SignCredential(tb, e.DB, e.Store, e.Issuer, id, true, true)
	return id
}

// SignCredential signs the assertion as the sign step does (its badge's criteria narrative, image and skills, its
// evidence), with the recipient's name when withName and its status list entry when withStatus, then as edit
// changes it; it stores the credential, records its digest as the sign step does and marks the assertion RECEIVED.
func SignCredential(tb testing.TB, d *db.DB, store blob.Store, iss *issuer.Service, id uuid.UUID, withName, withStatus bool, edit ...func(*credential.BuildInput)) []byte {
	tb.Helper()
	ctx := context.Background()
	a, err := d.GetBadgePage(ctx, id)
	require.NoError(tb, err)
	as := a.Assertion
	// The issuer and the badge as the sign step puts them (issuer.Profile, issuer.Achievement).
	website := ""
	if a.OrgWebsiteUrl != nil {
		website = *a.OrgWebsiteUrl
	}
	profile := iss.Profile(as.OrgID, as.Mode, a.OrgName, website)
	in := credential.BuildInput{ID: iss.CredentialID(as.ID), ValidFrom: as.IssuedAt, Name: a.BadgeName,
		Issuer:    credential.Issuer{ID: profile.ID, Name: a.OrgName, URL: profile.URL},
		Recipient: credential.Recipient{Email: *as.RecipientEmail, Salt: "s"},
		Achievement: iss.Achievement(issuer.Badge{ID: as.BadgeID, ImageID: a.BadgeImageID, Name: a.BadgeName,
			Description: a.BadgeDescription, Criteria: a.BadgeCriteria, Skills: a.BadgeSkills})}
	if withName {
		in.Recipient.Name = as.RecipientName
	}
	if withStatus {
		require.NotNil(tb, as.StatusListID)
		in.Status = &credential.StatusEntry{ListCredential: iss.StatusListURL(*as.StatusListID), Index: int(*as.StatusListIndex)}
	}
	if as.ExpiredAt != nil {
		in.ValidUntil = *as.ExpiredAt
	}
	if len(as.Evidence) > 0 { // as the sign step does
		require.NoError(tb, json.Unmarshal(as.Evidence, &in.Evidence))
	}
	for _, e := range edit {
		e(&in)
	}
	doc, err := credential.Build(in)
	require.NoError(tb, err)
	signer, err := iss.Signer(ctx, as.OrgID, as.Mode)
	require.NoError(tb, err)
	signed, err := signer.Sign(ctx, doc, as.IssuedAt)
	require.NoError(tb, err)
	key := issuer.CredentialKey(as.ID.String())
	_, err = store.PutIfAbsent(ctx, key, signed, "application/json")
	require.NoError(tb, err)
	sum := sha256.Sum256(signed) // as the sign step records it beside the document
	_, err = d.Pool.Exec(ctx, "UPDATE assertions SET credential_key = $2, credential_sha256 = $3, state = 'RECEIVED' WHERE id = $1", as.ID, key, sum[:])
	require.NoError(tb, err)
	return signed
}

// Response is a decoded answer of the server.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any // nil when the body is not a JSON object
}

// Do sends a request with a JSON body ("" sends none) and the API key key ("" sends none).
func (e *Env) Do(tb testing.TB, method, path, key, body string) Response {
	tb.Helper()
	return e.Request(tb, method, path, key, body, nil)
}

// Request is Do with more request headers.
func (e *Env) Request(tb testing.TB, method, path, key, body string, header http.Header) Response {
	tb.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, e.Srv.URL+path, strings.NewReader(body))
	require.NoError(tb, err)
	for k, v := range header {
		req.Header[k] = v
	}
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.Srv.Client().Do(req)
	require.NoError(tb, err, "%s %s", method, path)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	out := Response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(raw, &out.Body)
	}
	return out
}

// MustOK sends a JSON request that must succeed (200, success true) and returns its data object.
func (e *Env) MustOK(tb testing.TB, method, path, key, body string) map[string]any {
	tb.Helper()
	r := e.Do(tb, method, path, key, body)
	require.Equal(tb, http.StatusOK, r.Status, "%s %s: %s", method, path, r.Raw)
	require.Equal(tb, true, r.Body["success"], "%s", r.Raw)
	data, ok := r.Body["data"].(map[string]any)
	require.True(tb, ok, "data is not an object: %s", r.Raw)
	return data
}

// Local turns a URL under BaseURL into one of the test server.
func (e *Env) Local(u string) string { return strings.Replace(u, BaseURL, e.Srv.URL, 1) }

// JGet walks a decoded JSON value along a dotted path; numeric segments index arrays.
func JGet(tb testing.TB, v any, path string) any {
	tb.Helper()
	cur := v
	for _, seg := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[seg]
			require.True(tb, ok, "jget %s: no key %q in %v", path, seg, c)
			cur = next
		case []any:
			i, err := strconv.Atoi(seg)
			require.NoError(tb, err, "jget %s", path)
			require.Less(tb, i, len(c), "jget %s: index out of range", path)
			cur = c[i]
		default:
			tb.Fatalf("jget %s: cannot descend into %T at %q", path, cur, seg)
		}
	}
	return cur
}

// JStr is JGet of a string.
func JStr(tb testing.TB, v any, path string) string {
	tb.Helper()
	s, ok := JGet(tb, v, path).(string)
	require.True(tb, ok, "jget %s is not a string", path)
	return s
}
