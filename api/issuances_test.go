package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/api/apitest"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/issuer"
)

// issNow is the handler clock of the issuance tests: late enough that 2025-01-31 plus one month (2025-03-01 00:00
// Seoul) is still ahead of it, so the contract's expiry example can be issued.
var issNow = time.Date(2025, 2, 10, 0, 0, 0, 0, time.UTC)

// fakeStarter records the issuances the API asks it to start; err, when set, is returned instead of success.
type fakeStarter struct {
	mu      sync.Mutex
	started []db.Issuance
	err     error
}

var _ api.IssuanceStarter = (*fakeStarter)(nil)

func (s *fakeStarter) StartIssuance(_ context.Context, iss db.Issuance) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = append(s.started, iss)
	return s.err
}

func (s *fakeStarter) calls() []db.Issuance {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]db.Issuance(nil), s.started...)
}

func (s *fakeStarter) failWith(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// testClock is a handler clock the test moves: assertions take it as created_at, so moving it spreads them in time.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// newIssuanceHandler is the API over d with a recording starter and the given clock.
func newIssuanceHandler(tb testing.TB, d *db.DB, starter api.IssuanceStarter, clock func() time.Time) http.Handler {
	tb.Helper()
	return api.NewHandler(issuanceDeps(tb, d, starter, clock))
}

// issuanceDeps are the dependencies of newIssuanceHandler: a fresh local store and an issuer service with a test
// sealing key.
func issuanceDeps(tb testing.TB, d *db.DB, starter api.IssuanceStarter, clock func() time.Time) api.Deps {
	tb.Helper()
	store, err := blob.NewLocal(tb.TempDir())
	require.NoError(tb, err)
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(tb, err)
	ring, err := credential.NewKeyring("test:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	require.NoError(tb, err)
	return api.Deps{
		DB: d, Blob: store, Location: seoul, PublicBaseURL: baseURL, Clock: clock, Issuances: starter,
		Issuer: issuer.New(d, ring, baseURL),
		Log:    slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
}

// issFixture is the common fixture served by a handler with a recording starter and a settable clock, plus badges
// for the issuance rules: {badge1m} expires one month after issue, {fixedBadge} has a FIXED policy, {badge2} is a
// second badge of {program}, and {program2} is linked to no badge.
type issFixture struct {
	*fixture
	starter *fakeStarter
	clock   *testClock
}

func newIssFixture(tb testing.TB) *issFixture {
	tb.Helper()
	f := &issFixture{fixture: newFixture(tb), starter: &fakeStarter{}, clock: &testClock{now: issNow}}
	f.env = &env{d: f.d, srv: startServer(tb, newIssuanceHandler(tb, f.d, f.starter, f.clock.Now))}
	f.vars["{badge1m}"] = f.mustBadgeWith(tb, "One month", `"expirationPolicy":{"relativeExpirationMonths":1}`, f.vars["{program}"])
	f.vars["{fixedBadge}"] = f.mustBadgeWith(tb, "Fixed", `"expirationPolicy":{"type":"FIXED","fixedExpiredAt":"2030-12-31T00:00:00Z"}`, f.vars["{program}"])
	f.vars["{badge2}"] = f.mustBadge(tb, "manager", "Second badge", f.vars["{image}"], f.vars["{program}"])
	f.vars["{program2}"] = f.mustProgram(tb, "manager", "Unlinked program", f.vars["{image}"])
	return f
}

// mustBadgeWith creates a badge whose create body has the extra field(s) extra.
func (f *issFixture) mustBadgeWith(tb testing.TB, name, extra string, programIDs ...string) string {
	tb.Helper()
	body := badgeBody(name, f.vars["{image}"], programIDs...)
	body = body[:len(body)-1] + "," + extra + "}"
	return jstr(tb, f.mustOK(tb, http.MethodPost, "/public/v3/badges", f.keys["manager"], body), "id")
}

// noIdemKey makes postIssuance send no Idempotency-Key header at all.
const noIdemKey = "\x00none"

// postIssuance posts an issuance of badge (expanded) with an Idempotency-Key; key names a fixture key or is sent as is.
func (f *issFixture) postIssuance(tb testing.TB, version, badge, key, idem, body string) response {
	tb.Helper()
	if k, ok := f.keys[key]; ok {
		key = k
	}
	return f.postIssuanceTo(tb, "/public/"+version+"/badges/"+f.expand(badge)+"/issuances", key, idem, body)
}

// postIssuanceTo is postIssuance to path (a query string included), with key already resolved.
func (f *issFixture) postIssuanceTo(tb testing.TB, path, key, idem, body string) response {
	tb.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, f.srv.URL+path, strings.NewReader(f.expand(body)))
	require.NoError(tb, err)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	if idem != noIdemKey {
		req.Header["Idempotency-Key"] = []string{idem}
	}
	res, err := f.srv.Client().Do(req)
	require.NoError(tb, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(raw, &out.Body)
	}
	return out
}

// mustIssue posts an issuance that must succeed and returns its data.
func (f *issFixture) mustIssue(tb testing.TB, version, badge, key, idem, body string) map[string]any {
	tb.Helper()
	r := f.postIssuance(tb, version, badge, key, idem, body)
	require.Equal(tb, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(tb, true, r.Body["success"], "%s", r.Raw)
	data, ok := r.Body["data"].(map[string]any)
	require.True(tb, ok, "%s", r.Raw)
	return data
}

// issuancePath is the path of an issuance POST, as error.path names it.
func (f *issFixture) issuancePath(version, badge string) string {
	return "/public/" + version + "/badges/" + f.expand(badge) + "/issuances"
}

// credits reads the organization's credit balance.
func credits(tb testing.TB, d *db.DB, org db.Organization) int64 {
	tb.Helper()
	var n int64
	require.NoError(tb, d.Pool.QueryRow(context.Background(), "SELECT credits FROM organizations WHERE id = $1", org.ID).Scan(&n))
	return n
}

func setCredits(tb testing.TB, d *db.DB, org db.Organization, n int64) {
	tb.Helper()
	_, err := d.Pool.Exec(context.Background(), "UPDATE organizations SET credits = $2 WHERE id = $1", org.ID, n)
	require.NoError(tb, err)
}

// mustModeKey creates an API key of role and mode (live or test) for org.
func mustModeKey(tb testing.TB, d *db.DB, org db.Organization, role, mode string) string {
	tb.Helper()
	key, _ := apitest.Key(tb, d, org, role, mode)
	return key
}

// rcpt is one recipient object receiving by email.
func rcpt(name, email string) string {
	return `{"name":` + quote(name) + `,"email":` + quote(email) + `,"receiveType":"EMAIL"}`
}

// issuanceBody is a request body of program with the given recipient objects.
func issuanceBody(program string, recipients ...string) string {
	return `{"recipients":[` + strings.Join(recipients, ",") + `],"programId":"` + program + `"}`
}

// manyRecipients is a body with n distinct email recipients.
func manyRecipients(program string, n int) string {
	var b strings.Builder
	b.WriteString(`{"programId":"` + program + `","recipients":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"R %d","email":"r%d@example.com","receiveType":"EMAIL"}`, i, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// requireNothingWritten checks that no issuance or assertion of the org exists, credits are as before and no
// workflow was started.
func (f *issFixture) requireNothingWritten(tb testing.TB, creditsBefore int64) {
	tb.Helper()
	require.Zero(tb, countRows(tb, f.d, "issuances", f.org))
	require.Zero(tb, countRows(tb, f.d, "assertions", f.org))
	require.Equal(tb, creditsBefore, credits(tb, f.d, f.org))
	require.Empty(tb, f.starter.calls())
}

func TestIssuances_IdempotencyKeyHeader(t *testing.T) {
	f := newIssFixture(t)
	body := issuanceBody("{program}", rcpt("Kim", "kim@example.com"))
	cases := []struct {
		name string
		idem string
		ok   bool
	}{
		{"missing", noIdemKey, false},
		{"empty", "", false},
		{"only spaces", "   ", false},
		{"301 characters", strings.Repeat("k", 301), false},
		{"300 multi-byte characters count as 300", strings.Repeat("가", 298) + "VV", true},
		{"300 characters", strings.Repeat("k", 298) + "VV", true},
		{"2 characters", "VV", true},
	}
	for _, c := range cases {
		for _, v := range testVersions {
			t.Run(c.name+"/"+v, func(t *testing.T) {
				before := countRows(t, f.d, "issuances", f.org)
				// A key is bound to the version it was first used with: the accepted keys end in the version.
				idem := strings.ReplaceAll(c.idem, "VV", v)
				require.Equal(t, utf8.RuneCountInString(c.idem), utf8.RuneCountInString(idem))
				r := f.postIssuance(t, v, "{badge}", "manager", idem, body)
				if c.ok {
					require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
					require.Equal(t, before+1, countRows(t, f.d, "issuances", f.org))
					return
				}
				requireError(t, r, f.issuancePath(v, "{badge}"), http.StatusBadRequest, "ISS056", "Idempotency-Key")
				require.Equal(t, before, countRows(t, f.d, "issuances", f.org))
			})
		}
	}
}

func TestIssuances_BodyValidation(t *testing.T) {
	f := newIssFixture(t)
	good := rcpt("Kim", "kim@example.com")
	cases := []struct {
		name, version, body, code string
		fields                    []string // error.errors must name exactly these
	}{
		{"recipients missing", "", `{"programId":"{program}"}`, "COM006", []string{"recipients"}},
		{"recipients empty", "", `{"programId":"{program}","recipients":[]}`, "COM006", []string{"recipients"}},
		{"recipients null", "", `{"programId":"{program}","recipients":null}`, "COM006", []string{"recipients"}},
		{"recipients not an array", "", `{"programId":"{program}","recipients":{"name":"Kim"}}`, "COM002", []string{"recipients"}},
		{"recipient not an object", "", issuanceBody("{program}", good, `"kim"`), "COM002", []string{"recipients[1]"}},
		{"100,001 recipients", "", manyRecipients("{program}", 100_001), "COM006", []string{"recipients"}},
		{"recipient name missing", "", issuanceBody("{program}", good, `{"email":"a@example.com","receiveType":"EMAIL"}`),
			"COM006", []string{"recipients[1].name"}},
		{"recipient name blank", "", issuanceBody("{program}", `{"name":"  ","email":"a@example.com","receiveType":"EMAIL"}`),
			"COM006", []string{"recipients[0].name"}},
		{"recipient name 101 characters", "", issuanceBody("{program}", rcpt(strings.Repeat("이", 101), "a@example.com")),
			"COM006", []string{"recipients[0].name"}},
		{"receiveType missing", "", issuanceBody("{program}", `{"name":"Kim","email":"a@example.com"}`),
			"COM006", []string{"recipients[0].receiveType"}},
		{"receiveType unknown", "", issuanceBody("{program}", good, `{"name":"Lee","email":"l@example.com","receiveType":"SMS"}`),
			"COM006", []string{"recipients[1].receiveType"}},
		{"email malformed", "", issuanceBody("{program}", good, good, good, rcpt("Park", "park.example.com")),
			"COM002", []string{"recipients[3].email"}},
		{"email with display name", "", issuanceBody("{program}", rcpt("Park", "Park <park@example.com>")),
			"COM002", []string{"recipients[0].email"}},
		{"email not a string", "", issuanceBody("{program}", `{"name":"Kim","email":5,"receiveType":"EMAIL"}`),
			"COM002", []string{"recipients[0].email"}},
		{"phone malformed", "", issuanceBody("{program}", `{"name":"Kim","phoneNumber":"010-12ab-5678","receiveType":"KAKAOTALK"}`),
			"COM002", []string{"recipients[0].phoneNumber"}},
		{"phone without country or trunk prefix", "", issuanceBody("{program}", `{"name":"Kim","phoneNumber":"1234","receiveType":"KAKAOTALK"}`),
			"COM002", []string{"recipients[0].phoneNumber"}},
		{"two bad recipients are both named", "", issuanceBody("{program}", rcpt("A", "bad"), good, `{"name":"C","receiveType":"FAX"}`),
			"COM002", []string{"recipients[0].email", "recipients[2].receiveType"}},
		{"sourcedId in v2", "v2", issuanceBody("{program}", `{"name":"Kim","email":"k@example.com","sourcedId":"S1","receiveType":"EMAIL"}`),
			"COM006", []string{"recipients[0].sourcedId"}},
		{"issuedAt in v2", "v2", `{"programId":"{program}","recipients":[` + good + `],"issuedAt":"2025-01-01T00:00:00"}`,
			"COM006", []string{"issuedAt"}},
		{"unknown recipient field", "", issuanceBody("{program}", `{"name":"Kim","email":"k@example.com","receiveType":"EMAIL","age":3}`),
			"COM006", []string{"recipients[0].age"}},
		{"unknown top-level field", "", `{"programId":"{program}","recipients":[` + good + `],"badgeId":"{badge}"}`,
			"COM006", []string{"badgeId"}},
		{"programId missing", "", `{"recipients":[` + good + `]}`, "COM006", []string{"programId"}},
		{"programId null", "", `{"programId":null,"recipients":[` + good + `]}`, "COM006", []string{"programId"}},
		{"programId not a UUID", "", issuanceBody("not-a-uuid", good), "COM002", []string{"programId"}},
		{"programId UUID without hyphens", "", issuanceBody(strings.ReplaceAll(uuid.NewString(), "-", ""), good), "COM002", []string{"programId"}},
	}
	before := credits(t, f.d, f.org)
	for _, c := range cases {
		for _, v := range testVersions {
			if c.version != "" && c.version != v {
				continue
			}
			t.Run(c.name+"/"+v, func(t *testing.T) {
				r := f.postIssuance(t, v, "{badge}", "manager", "key-"+c.name, c.body)
				requireError(t, r, f.issuancePath(v, "{badge}"), http.StatusBadRequest, c.code, c.fields...)
				require.ElementsMatch(t, c.fields, errorFields(r), "%s", r.Raw)
			})
		}
	}
	t.Run("body is not JSON", func(t *testing.T) {
		r := f.postIssuance(t, "v3", "{badge}", "manager", "k", `{"recipients":[`)
		requireError(t, r, f.issuancePath("v3", "{badge}"), http.StatusBadRequest, "COM002")
	})
	t.Run("no body", func(t *testing.T) {
		r := f.postIssuance(t, "v3", "{badge}", "manager", "k", ``)
		requireError(t, r, f.issuancePath("v3", "{badge}"), http.StatusBadRequest, "COM006")
	})
	f.requireNothingWritten(t, before)

	t.Run("sourcedId is accepted in v3", func(t *testing.T) {
		f.mustIssue(t, "v3", "{badge}", "manager", "sourced",
			issuanceBody("{program}", `{"name":"Kim","email":"k@example.com","sourcedId":"S1","receiveType":"EMAIL"}`))
	})
	t.Run("100,000 recipients pass validation and reach the credit check", func(t *testing.T) {
		r := f.postIssuance(t, "v3", "{badge}", "manager", "hundred-thousand", manyRecipients("{program}", 100_000))
		requireError(t, r, f.issuancePath("v3", "{badge}"), http.StatusPaymentRequired, "PAY054")
	})
}

func TestIssuances_BadgeAndProgram(t *testing.T) {
	f := newIssFixture(t)
	body := issuanceBody("{program}", rcpt("Kim", "kim@example.com"))
	cases := []struct {
		name, badge, body, key string
		status                 int
		code                   string
		fields                 []string
	}{
		{"program of another organization", "{badge}", issuanceBody("{otherProgram}", rcpt("Kim", "kim@example.com")), "manager", 404, "PRG001", nil},
		{"program that does not exist", "{badge}", issuanceBody("{missing}", rcpt("Kim", "kim@example.com")), "manager", 404, "PRG001", nil},
		{"program not linked to the badge", "{badge}", issuanceBody("{program2}", rcpt("Kim", "kim@example.com")), "manager", 400, "COM006", []string{"programId"}},
		{"badge of another organization", "{otherBadge}", body, "manager", 404, "BDG001", nil},
		{"badge that does not exist", "{missing}", body, "manager", 404, "BDG001", nil},
		{"badge id not a UUID", "not-a-uuid", body, "manager", 400, "COM002", []string{"badgeId"}},
		{"badge with a FIXED policy", "{fixedBadge}", body, "manager", 400, "BDG064", nil},
		{"viewer key", "{badge}", body, "viewer", 403, "ORG004", nil},
		{"no key", "{badge}", body, "", 401, "SEC065", nil},
	}
	before := credits(t, f.d, f.org)
	for _, c := range cases {
		for _, v := range testVersions {
			t.Run(c.name+"/"+v, func(t *testing.T) {
				r := f.postIssuance(t, v, c.badge, c.key, "key-"+c.name, c.body)
				requireError(t, r, f.issuancePath(v, c.badge), c.status, c.code, c.fields...)
			})
		}
	}
	f.requireNothingWritten(t, before)
	t.Run("the deleted badge of a program is not found", func(t *testing.T) {
		f.mustOK(t, http.MethodDelete, "/public/v3/badges/"+f.vars["{badge2}"], f.keys["manager"], "")
		r := f.postIssuance(t, "v3", "{badge2}", "manager", "deleted", body)
		requireError(t, r, f.issuancePath("v3", "{badge2}"), http.StatusNotFound, "BDG001")
	})
}

func TestIssuances_Credits(t *testing.T) {
	f := newIssFixture(t)
	three := issuanceBody("{program}", rcpt("A", "a@example.com"), rcpt("B", "b@example.com"), rcpt("C", "c@example.com"))
	for _, v := range testVersions {
		t.Run("short by one/"+v, func(t *testing.T) {
			setCredits(t, f.d, f.org, 2)
			r := f.postIssuance(t, v, "{badge}", "manager", "short-"+v, three)
			requireError(t, r, f.issuancePath(v, "{badge}"), http.StatusPaymentRequired, "PAY054")
			f.requireNothingWritten(t, 2)
		})
	}
	t.Run("exactly enough", func(t *testing.T) {
		setCredits(t, f.d, f.org, 3)
		data := f.mustIssue(t, "v3", "{badge}", "manager", "enough", three)
		require.Equal(t, float64(3), data["assertionCount"])
		require.Equal(t, int64(0), credits(t, f.d, f.org))
		require.Equal(t, 3, countRows(t, f.d, "assertions", f.org))
	})
	t.Run("the key of the failed request can be used once credits are granted", func(t *testing.T) {
		setCredits(t, f.d, f.org, 10)
		f.mustIssue(t, "v2", "{badge}", "manager", "short-v2", three)
		require.Equal(t, int64(7), credits(t, f.d, f.org))
	})
	t.Run("test-mode key spends no credits and its assertions are never listed", func(t *testing.T) {
		setCredits(t, f.d, f.org, 0)
		testKey := mustModeKey(t, f.d, f.org, apikey.RoleManager, apikey.ModeTest)
		for _, v := range testVersions {
			data := f.mustIssue(t, v, "{badge}", testKey, "test-mode-"+v, three)
			require.Equal(t, float64(3), data["assertionCount"])
			var mode string
			var debited int32
			require.NoError(t, f.d.Pool.QueryRow(context.Background(),
				"SELECT mode, credits_debited FROM issuances WHERE id = $1", jstr(t, data, "id")).Scan(&mode, &debited))
			require.Equal(t, apikey.ModeTest, mode)
			require.Zero(t, debited)
			list := f.mustOK(t, http.MethodGet, "/public/"+v+"/assertions?issuanceId="+jstr(t, data, "id"), f.keys["viewer"], "")
			require.Empty(t, list["items"])
			require.Equal(t, float64(0), jget(t, list, "pagination.totalElement"))
		}
		require.Equal(t, int64(0), credits(t, f.d, f.org))
		require.Equal(t, 12, countRows(t, f.d, "assertions", f.org), "3 + 3 live ones before, 3 + 3 test ones now")
	})
}

func TestIssuances_IssuedAt(t *testing.T) {
	f := newIssFixture(t)
	one := func(issuedAt string) string {
		return `{"programId":"{program}","recipients":[` + rcpt("Kim", "kim@example.com") + `],"issuedAt":` + issuedAt + `}`
	}
	cases := []struct {
		name, badge, issuedAt, code string
	}{
		{"no offset", "{badge}", `"2025-02-01T09:00:00"`, "ISS058"},
		{"garbage", "{badge}", `"garbage"`, "ISS058"},
		{"date only", "{badge}", `"2025-02-01"`, "ISS058"},
		{"a number", "{badge}", `1738368000`, "ISS058"},
		{"future by a second", "{badge}", `"2025-02-10T00:00:01Z"`, "ISS059"},
		{"future in another offset", "{badge}", `"2025-02-10T09:00:01+09:00"`, "ISS059"},
		{"expiry already past", "{badge1m}", `"2024-12-01T00:00:00Z"`, "ISS061"},
		{"expiry at the current day's start is past", "{badge1m}", `"2025-01-09T16:00:00Z"`, "ISS061"}, // 2025-01-10 Seoul + 1 month = 2025-02-10 00:00 Seoul
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.postIssuance(t, "v3", c.badge, "manager", "k-"+c.name, one(c.issuedAt))
			requireError(t, r, f.issuancePath("v3", c.badge), http.StatusBadRequest, c.code, "issuedAt")
		})
	}
	f.requireNothingWritten(t, 100)

	issued := func(t *testing.T, data map[string]any) (issuedAt, expiredAt any) {
		t.Helper()
		list := f.mustOK(t, http.MethodGet, "/public/v3/assertions?issuanceId="+jstr(t, data, "id"), f.keys["viewer"], "")
		return jget(t, list, "items.0.issuedAt"), jget(t, list, "items.0.expiredAt")
	}
	t.Run("omitted means the server time", func(t *testing.T) {
		data := f.mustIssue(t, "v3", "{badge1m}", "manager", "omitted", issuanceBody("{program}", rcpt("Kim", "kim@example.com")))
		at, exp := issued(t, data)
		require.Equal(t, "2025-02-10T00:00:00Z", at)
		require.Equal(t, "2025-03-09T15:00:00Z", exp, "2025-02-10 Seoul + 1 month at 00:00 Seoul")
	})
	t.Run("null means the server time", func(t *testing.T) {
		data := f.mustIssue(t, "v3", "{badge}", "manager", "null", one("null"))
		at, exp := issued(t, data)
		require.Equal(t, "2025-02-10T00:00:00Z", at)
		require.Nil(t, exp, "a badge without policy never expires")
	})
	t.Run("now itself is not the future", func(t *testing.T) {
		data := f.mustIssue(t, "v3", "{badge}", "manager", "now", one(`"2025-02-10T09:00:00+09:00"`))
		at, _ := issued(t, data)
		require.Equal(t, "2025-02-10T00:00:00Z", at)
	})
	t.Run("long ago without policy", func(t *testing.T) {
		data := f.mustIssue(t, "v3", "{badge}", "manager", "old", one(`"2001-09-09T01:46:40.5Z"`))
		at, _ := issued(t, data)
		require.Equal(t, "2001-09-09T01:46:40Z", at)
	})
}

func TestIssuances_Idempotency(t *testing.T) {
	f := newIssFixture(t)
	a, b := rcpt("Kim", "kim@example.com"), rcpt("Lee", "lee@example.com")

	t.Run("replay returns the issuance without starting the recorded workflow again", func(t *testing.T) {
		for _, v := range testVersions {
			body := issuanceBody("{program}", a, b)
			calls := len(f.starter.calls())
			first := f.mustIssue(t, v, "{badge}", "manager", "replay-"+v, body)
			require.Len(t, f.starter.calls(), calls+1, "the first request starts the workflow")
			require.NotNil(t, workflowStartedAt(t, f.d, jstr(t, first, "id")), "and records that it did")
			creditsAfter := credits(t, f.d, f.org)
			second := f.mustIssue(t, v, "{badge}", "manager", "replay-"+v, body)
			require.Equal(t, first, second)
			require.Equal(t, creditsAfter, credits(t, f.d, f.org), "a replay debits nothing")
			require.Len(t, f.starter.calls(), calls+1, "a replay of a recorded start answers from the row")
			var n int
			require.NoError(t, f.d.Pool.QueryRow(context.Background(),
				"SELECT count(*) FROM issuances WHERE idempotency_key = $1", "replay-"+v).Scan(&n))
			require.Equal(t, 1, n)
		}
	})

	t.Run("a byte-identical replay is answered from the row before decoding", func(t *testing.T) {
		body := issuanceBody("{program}", a, b)
		first := f.mustIssue(t, "v3", "{badge}", "manager", "bytes", body)
		id := jstr(t, first, "id")
		sum := sha256.Sum256([]byte(f.expand(body)))
		var stored []byte
		require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT body_sha256 FROM issuances WHERE id = $1", id).Scan(&stored))
		require.Equal(t, sum[:], stored, "the body's bytes are recorded")
		// Spoil the request hash: only the byte comparison can still recognise the replay.
		_, err := f.d.Pool.Exec(context.Background(), "UPDATE issuances SET request_hash = '\\x00' WHERE id = $1", id)
		require.NoError(t, err)
		require.Equal(t, first, f.mustIssue(t, "v3", "{badge}", "manager", "bytes", body))
		// The same request in other bytes takes the full path, which now compares against the spoiled hash.
		r := f.postIssuance(t, "v3", "{badge}", "manager", "bytes", " "+body)
		require.Equal(t, http.StatusConflict, r.Status, "%s", r.Raw)
		// So does the same bytes under the other API version.
		r = f.postIssuance(t, "v2", "{badge}", "manager", "bytes", body)
		require.Equal(t, http.StatusConflict, r.Status, "%s", r.Raw)
	})

	t.Run("a failed workflow start is healed by the retry", func(t *testing.T) {
		body := issuanceBody("{program}", a)
		f.starter.failWith(errors.New("temporal unavailable"))
		r := f.postIssuance(t, "v3", "{badge}", "manager", "heal", body)
		require.Equal(t, http.StatusInternalServerError, r.Status, "%s", r.Raw)
		require.Equal(t, "INTERNAL_SERVER_ERROR", jstr(t, r.Body, "error.code"))
		require.NotContains(t, string(r.Raw), "temporal unavailable", "the cause is logged, not answered")
		started := f.starter.calls()
		committed := started[len(started)-1]
		f.starter.failWith(nil)
		require.Nil(t, workflowStartedAt(t, f.d, committed.ID.String()), "a failed start is not recorded")
		data := f.mustIssue(t, "v3", "{badge}", "manager", "heal", body)
		require.Equal(t, committed.ID.String(), jstr(t, data, "id"))
		require.Equal(t, committed.ID, f.starter.calls()[len(f.starter.calls())-1].ID, "the retry starts it")
		require.NotNil(t, workflowStartedAt(t, f.d, committed.ID.String()))
		calls := len(f.starter.calls())
		f.mustIssue(t, "v3", "{badge}", "manager", "heal", body)
		require.Len(t, f.starter.calls(), calls, "once recorded, replays no longer call Temporal")
	})

	// check posts body1 then body2 under one key: body2 must be ISS057 (conflict) or answer the same issuance. An
	// empty body2 resends body1 on v3.
	check := func(t *testing.T, v, badge, key, body1, body2 string, conflict bool) {
		t.Helper()
		first := f.mustIssue(t, v, badge, "manager", key, body1)
		issuances := countRows(t, f.d, "issuances", f.org)
		v2nd := v
		if body2 == "" {
			v2nd, body2 = "v3", body1
		}
		r := f.postIssuance(t, v2nd, badge, "manager", key, body2)
		if conflict {
			requireError(t, r, f.issuancePath(v2nd, badge), http.StatusConflict, "ISS057")
		} else {
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
			require.Equal(t, jstr(t, first, "id"), jstr(t, r.Body, "data.id"))
		}
		require.Equal(t, issuances, countRows(t, f.d, "issuances", f.org))
	}
	cases := []struct {
		name, version, body1, body2 string
		conflict                    bool
	}{
		{"recipients reordered", "", issuanceBody("{program}", a, b), issuanceBody("{program}", b, a), true},
		{"a recipient more", "", issuanceBody("{program}", a), issuanceBody("{program}", a, b), true},
		{"another program", "", issuanceBody("{program}", a), issuanceBody("{program2}", a), true},
		{"v2 white space and key order", "v2", issuanceBody("{program}", a, b),
			"{\n  \"programId\" : \"{program}\",\n  \"recipients\" : [ {\"receiveType\":\"EMAIL\", \"email\":\"kim@example.com\", \"name\":\"Kim\"},\n" +
				"   {\"email\":\"lee@example.com\",\"receiveType\":\"EMAIL\",\"name\":\"Lee\"} ]\n}\n", false},
		{"v2 email case is a different body", "v2", issuanceBody("{program}", a), issuanceBody("{program}", rcpt("Kim", "KIM@example.com")), true},
		{"v2 explicit null phone is a different body", "v2", issuanceBody("{program}", a),
			issuanceBody("{program}", `{"name":"Kim","email":"kim@example.com","phoneNumber":null,"receiveType":"EMAIL"}`), true},
		{"v3 email case and spaces", "v3", issuanceBody("{program}", a), issuanceBody("{program}", rcpt(" Kim ", "  KIM@Example.COM ")), false},
		{"v3 phone notations", "v3",
			issuanceBody("{program}", `{"name":"Kim","phoneNumber":"010-1234-5678","receiveType":"KAKAOTALK"}`),
			issuanceBody("{program}", `{"name":"Kim","phoneNumber":"+82 10 1234 5678","receiveType":"KAKAOTALK"}`), false},
		{"v3 another phone number", "v3",
			issuanceBody("{program}", `{"name":"Kim","phoneNumber":"010-1234-5678","receiveType":"KAKAOTALK"}`),
			issuanceBody("{program}", `{"name":"Kim","phoneNumber":"010-1234-5679","receiveType":"KAKAOTALK"}`), true},
		{"v3 issuedAt offsets of one instant", "v3",
			`{"programId":"{program}","recipients":[` + a + `],"issuedAt":"2025-02-01T09:00:00+09:00"}`,
			`{"programId":"{program}","recipients":[` + a + `],"issuedAt":"2025-02-01T00:00:00Z"}`, false},
		{"v3 issuedAt omitted and null", "v3", issuanceBody("{program}", a),
			`{"programId":"{program}","recipients":[` + a + `],"issuedAt":null}`, false},
		{"v3 issuedAt added", "v3", issuanceBody("{program}", a),
			`{"programId":"{program}","recipients":[` + a + `],"issuedAt":"2025-02-10T00:00:00Z"}`, true},
		{"v3 issuedAt removed", "v3", `{"programId":"{program}","recipients":[` + a + `],"issuedAt":"2025-02-01T00:00:00Z"}`,
			issuanceBody("{program}", a), true},
		{"v3 issuedAt changed", "v3", `{"programId":"{program}","recipients":[` + a + `],"issuedAt":"2025-02-01T00:00:00Z"}`,
			`{"programId":"{program}","recipients":[` + a + `],"issuedAt":"2025-02-01T00:00:01Z"}`, true},
		{"v3 sourcedId added", "v3", issuanceBody("{program}", a),
			issuanceBody("{program}", `{"name":"Kim","email":"kim@example.com","sourcedId":"S1","receiveType":"EMAIL"}`), true},
	}
	for _, c := range cases {
		for _, v := range testVersions {
			if c.version != "" && c.version != v {
				continue
			}
			t.Run(c.name+"/"+v, func(t *testing.T) {
				check(t, v, "{badge}", "idem-"+c.name+"-"+v, c.body1, c.body2, c.conflict)
			})
		}
	}

	t.Run("the key is scoped to the badge", func(t *testing.T) {
		for _, v := range testVersions {
			body := issuanceBody("{program}", a)
			one := f.mustIssue(t, v, "{badge}", "manager", "scoped-"+v, body)
			two := f.mustIssue(t, v, "{badge2}", "manager", "scoped-"+v, body)
			require.NotEqual(t, jstr(t, one, "id"), jstr(t, two, "id"))
			require.Equal(t, f.vars["{badge2}"], jstr(t, two, "badgeId"))
			calls := f.starter.calls()
			require.NotEqual(t, calls[len(calls)-1].WorkflowID, calls[len(calls)-2].WorkflowID)
		}
	})
	t.Run("the key of a v2 request under v3 is a different request", func(t *testing.T) {
		check(t, "v2", "{badge}", "cross-version", issuanceBody("{program}", a), "", true)
	})
	t.Run("the key is scoped to the organization", func(t *testing.T) {
		mine := f.mustIssue(t, "v3", "{badge}", "manager", "org-scoped", issuanceBody("{program}", a))
		theirs := f.mustIssue(t, "v3", "{otherBadge}", "otherManager", "org-scoped", issuanceBody("{otherProgram}", a))
		require.NotEqual(t, jstr(t, mine, "id"), jstr(t, theirs, "id"))
	})
	t.Run("a replay is answered after the badge became FIXED and credits ran out", func(t *testing.T) {
		badge := f.mustBadgeWith(t, "Changes later", `"expirationPolicy":{"relativeExpirationMonths":12}`, f.vars["{program}"])
		body := issuanceBody("{program}", a)
		first := f.mustIssue(t, "v3", badge, "manager", "changed", body)
		f.mustOK(t, http.MethodPatch, "/public/v3/badges/"+badge, f.keys["manager"],
			`{"expirationPolicy":{"type":"FIXED","fixedExpiredAt":"2030-01-01T00:00:00Z"}}`)
		left := credits(t, f.d, f.org)
		setCredits(t, f.d, f.org, 0)
		require.Equal(t, first, f.mustIssue(t, "v3", badge, "manager", "changed", body))
		setCredits(t, f.d, f.org, left)
	})
}

func TestIssuances_ConcurrentReplays(t *testing.T) {
	f := newIssFixture(t)
	body := issuanceBody("{program}", rcpt("Kim", "kim@example.com"), rcpt("Lee", "lee@example.com"))
	const n = 20
	type result struct {
		status int
		raw    []byte
		err    error
	}
	results := make([]result, n)
	path := f.srv.URL + f.issuancePath("v3", "{badge}")
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, path, strings.NewReader(f.expand(body)))
			if err != nil {
				results[i].err = err
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-API-KEY", f.keys["manager"])
			req.Header.Set("Idempotency-Key", "concurrent")
			res, err := f.srv.Client().Do(req)
			if err != nil {
				results[i].err = err
				return
			}
			defer res.Body.Close()
			results[i].status = res.StatusCode
			results[i].raw, results[i].err = io.ReadAll(res.Body)
		})
	}
	close(start)
	wg.Wait()
	ids := map[string]bool{}
	for _, r := range results {
		require.NoError(t, r.err)
		require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
		var out struct {
			Data struct{ ID string }
		}
		require.NoError(t, json.Unmarshal(r.raw, &out))
		ids[out.Data.ID] = true
	}
	require.Len(t, ids, 1, "every request answers the same issuance")
	require.Equal(t, 1, countRows(t, f.d, "issuances", f.org))
	require.Equal(t, 2, countRows(t, f.d, "assertions", f.org))
	require.Equal(t, int64(98), credits(t, f.d, f.org), "credits are debited once")
	// Requests that read the row before the first start was recorded call Temporal too (USE_EXISTING makes that
	// harmless); the later ones answer from the row.
	require.NotEmpty(t, f.starter.calls())
	require.LessOrEqual(t, len(f.starter.calls()), n)
	for id := range ids {
		require.NotNil(t, workflowStartedAt(t, f.d, id))
	}
	for _, c := range f.starter.calls() {
		require.True(t, ids[c.ID.String()])
	}
}

func TestIssuances_CreatesAssertions(t *testing.T) {
	f := newIssFixture(t)
	body := `{"programId":"{program}","issuedAt":"2025-01-31T15:30:00Z","recipients":[` +
		`{"name":" Kim Minji ","email":" Minji.Kim@Example.COM ","receiveType":"EMAIL","sourcedId":"stu-1"},` +
		`{"name":"Lee","phoneNumber":"010-1234-5678","receiveType":"KAKAOTALK"},` +
		`{"name":"박서준","email":"park@example.com","phoneNumber":"+82 10 9876 5432","receiveType":"EMAIL","sourcedId":null}]}`
	data := f.mustIssue(t, "v3", "{badge1m}", "manager", "assertions", body)
	id := jstr(t, data, "id")
	require.Equal(t, "PROCESSING", data["processingStatus"])
	require.Equal(t, float64(3), data["assertionCount"])
	require.Equal(t, f.vars["{badge1m}"], data["badgeId"])
	require.Equal(t, f.vars["{program}"], data["programId"])

	started := f.starter.calls()
	require.Len(t, started, 1)
	require.Equal(t, id, started[0].ID.String())
	require.Equal(t, f.org.ID, started[0].OrgID)
	require.Equal(t, int32(3), started[0].AssertionCount)
	require.Equal(t, int16(3), started[0].ApiVersion)
	require.Equal(t, apikey.ModeLive, started[0].Mode)
	require.NotEmpty(t, started[0].WorkflowID)
	require.Equal(t, int64(97), credits(t, f.d, f.org))

	list := f.mustOK(t, http.MethodGet, "/public/v3/assertions?issuanceId="+id+"&sort=createdAt,asc", f.keys["viewer"], "")
	items, _ := list["items"].([]any)
	require.Len(t, items, 3)
	serials := map[string]bool{}
	serialForm := regexp.MustCompile(`^` + f.org.ID.String()[:8] + `-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$`)
	byName := map[string]map[string]any{}
	for _, it := range items {
		m := it.(map[string]any)
		require.Equal(t, "PROCESSING", m["stateCode"])
		require.Nil(t, m["errorCode"])
		require.Equal(t, "2025-01-31T15:30:00Z", m["issuedAt"])
		require.Equal(t, "2025-02-28T15:00:00Z", m["expiredAt"], "2025-02-01 Seoul + 1 month = 2025-03-01 00:00 Seoul")
		require.Equal(t, "2025-02-10T00:00:00Z", m["createdAt"], "createdAt is the actual creation time")
		require.Equal(t, id, m["issuanceId"])
		s := jstr(t, m, "serialNumber")
		require.Regexp(t, serialForm, s)
		serials[s] = true
		byName[jstr(t, m, "recipient.name")] = m
	}
	require.Len(t, serials, 3, "serial numbers are unique")
	require.Equal(t, map[string]any{"name": "Kim Minji", "email": "minji.kim@example.com", "phoneNumber": nil,
		"sourcedId": "stu-1", "receiveType": "EMAIL"}, byName["Kim Minji"]["recipient"])
	require.Equal(t, map[string]any{"name": "Lee", "email": nil, "phoneNumber": "+821012345678",
		"sourcedId": nil, "receiveType": "KAKAOTALK"}, byName["Lee"]["recipient"])
	require.Equal(t, map[string]any{"name": "박서준", "email": "park@example.com", "phoneNumber": "+821098765432",
		"sourcedId": nil, "receiveType": "EMAIL"}, byName["박서준"]["recipient"])

	// Recipient order is kept as seq; the stored state and expiry are what the list shows.
	rows, err := f.d.Pool.Query(context.Background(),
		"SELECT seq, recipient_name, state, expired_at, step FROM assertions WHERE issuance_id = $1 ORDER BY seq", id)
	require.NoError(t, err)
	var names []string
	for rows.Next() {
		var seq int32
		var name, state, step string
		var exp time.Time
		require.NoError(t, rows.Scan(&seq, &name, &state, &exp, &step))
		require.Equal(t, int32(len(names)), seq)
		require.Equal(t, "PROCESSING", state)
		require.True(t, exp.Equal(time.Date(2025, 2, 28, 15, 0, 0, 0, time.UTC)), "%s", exp)
		names = append(names, name)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"Kim Minji", "Lee", "박서준"}, names)

	t.Run("v2 uses the same rule and writes local times", func(t *testing.T) {
		data := f.mustIssue(t, "v2", "{badge1m}", "manager", "assertions-v2", issuanceBody("{program}", rcpt("Choi", "choi@example.com")))
		list := f.mustOK(t, http.MethodGet, "/public/v2/assertions?issuanceId="+jstr(t, data, "id"), f.keys["viewer"], "")
		item := jget(t, list, "items.0").(map[string]any)
		require.Equal(t, "2025-03-10T00:00:00", item["expiredAt"], "issued 2025-02-10 09:00 Seoul")
		require.Equal(t, "2025-02-10T09:00:00", item["createdAt"])
		require.NotContains(t, item, "issuedAt")
		serials[jstr(t, item, "serialNumber")] = true
		require.Len(t, serials, 4, "serials stay unique across issuances")
	})
}

func TestIssuances_Get(t *testing.T) {
	f := newIssFixture(t)
	data := f.mustIssue(t, "v3", "{badge}", "manager", "get", issuanceBody("{program}", rcpt("Kim", "kim@example.com"), rcpt("Lee", "lee@example.com")))
	id := jstr(t, data, "id")
	var created time.Time
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT created_at FROM issuances WHERE id = $1", id).Scan(&created))
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(t, err)
	for _, v := range testVersions {
		t.Run("fields/"+v, func(t *testing.T) {
			got := f.mustOK(t, http.MethodGet, "/public/"+v+"/issuances/"+id, f.keys["viewer"], "")
			want := created.UTC().Format(time.RFC3339)
			if v == "v2" {
				want = created.In(seoul).Format("2006-01-02T15:04:05")
			}
			require.Equal(t, map[string]any{"id": id, "badgeId": f.vars["{badge}"], "programId": f.vars["{program}"],
				"processingStatus": "PROCESSING", "assertionCount": float64(2), "createdAt": want, "updatedAt": want}, got)
		})
	}
	_, err = f.d.Pool.Exec(context.Background(), "UPDATE issuances SET processing_status = 'COMPLETED' WHERE id = $1", id)
	require.NoError(t, err)
	require.Equal(t, "COMPLETED", jstr(t, f.mustOK(t, http.MethodGet, "/public/v3/issuances/"+id, f.keys["viewer"], ""), "processingStatus"))
	require.Equal(t, "COMPLETED", jstr(t, f.mustIssue(t, "v3", "{badge}", "manager", "get",
		issuanceBody("{program}", rcpt("Kim", "kim@example.com"), rcpt("Lee", "lee@example.com"))), "processingStatus"),
		"a replay answers the stored state")

	f.vars["{issuance}"] = id
	f.run(t, []apiCase{
		{name: "other organization", method: http.MethodGet, path: "/issuances/{issuance}", key: "otherManager", wantStatus: 404, wantCode: "ISS001"},
		{name: "missing", method: http.MethodGet, path: "/issuances/{missing}", key: "viewer", wantStatus: 404, wantCode: "ISS001"},
		{name: "bad uuid", method: http.MethodGet, path: "/issuances/12345", key: "viewer", wantStatus: 400, wantCode: "COM002", wantFields: []string{"issuanceId"}},
		{name: "no key", method: http.MethodGet, path: "/issuances/{issuance}", key: "", wantStatus: 401, wantCode: "SEC065"},
	})
}

// A test-mode request and a live request with the same key are different requests: the live one must issue for
// real. Today the idempotency scope (issuances UNIQUE (org_id, badge_id, idempotency_key), GetIssuanceByKey and the
// workflow id) ignores the mode, so going live with the keys used while testing answers the old test issuance:
// nothing is debited, delivered or listed.
func TestIssuances_TestAndLiveKeysDoNotShareIdempotencyKeys(t *testing.T) {
	f := newIssFixture(t)
	testKey := mustModeKey(t, f.d, f.org, apikey.RoleManager, apikey.ModeTest)
	body := issuanceBody("{program}", rcpt("Kim", "kim@example.com"))
	tested := f.mustIssue(t, "v3", "{badge}", testKey, "order-1", body)
	live := f.mustIssue(t, "v3", "{badge}", "manager", "order-1", body)
	require.NotEqual(t, jstr(t, tested, "id"), jstr(t, live, "id"), "the live request answered the test issuance")
	require.Equal(t, int64(99), credits(t, f.d, f.org))
	calls := f.starter.calls()
	require.Equal(t, apikey.ModeLive, calls[len(calls)-1].Mode)
	require.NotEqual(t, calls[0].WorkflowID, calls[len(calls)-1].WorkflowID, "USE_EXISTING would attach to the test workflow")
}

// workflowStartedAt is the recorded workflow start of issuance id (nil: none recorded).
func workflowStartedAt(tb testing.TB, d *db.DB, id string) *time.Time {
	tb.Helper()
	var at *time.Time
	require.NoError(tb, d.Pool.QueryRow(context.Background(), "SELECT workflow_started_at FROM issuances WHERE id = $1", id).Scan(&at))
	return at
}
