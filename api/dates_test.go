package api_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// What a hostile date answers: accepted (accepted), refused as malformed (COM002), refused as out of range (COM006).
const (
	accepted   = ""
	malformed  = "COM002"
	outOfRange = "COM006"
)

// hostileDatetimes are datetimes every datetime input of both versions is tried with, and what each input
// answers: the v3 and v2 fields and filters, and v3's issuedAt with its own codes (ISS058 malformed or a time
// zone beyond ±14:00, ISS059 in the future, COM006 before 1970-01-01).
var hostileDatetimes = []struct {
	value       string
	v3, v2      string
	issuedAt    string
	whyIssuedAt string // a word of the issuedAt message
}{
	{value: "0000-01-01T00:00:00Z", v3: outOfRange, v2: outOfRange, issuedAt: outOfRange, whyIssuedAt: "earlier than 1970"},
	{value: "0001-01-01T00:00:00Z", v3: outOfRange, v2: outOfRange, issuedAt: outOfRange, whyIssuedAt: "earlier than 1970"},
	{value: "10000-01-01T00:00:00Z", v3: malformed, v2: malformed, issuedAt: "ISS058"},
	{value: "-0001-01-01T00:00:00Z", v3: malformed, v2: malformed, issuedAt: "ISS058"},
	{value: "+2025-01-01T00:00:00Z", v3: malformed, v2: malformed, issuedAt: "ISS058"},
	{value: "2025-02-30T00:00:00Z", v3: malformed, v2: malformed, issuedAt: "ISS058"},
	{value: "2023-02-29T00:00:00Z", v3: malformed, v2: malformed, issuedAt: "ISS058"},
	{value: "2016-12-31T23:59:60Z", v3: malformed, v2: malformed, issuedAt: "ISS058"}, // a leap second
	{value: "2025-01-01T24:00:00Z", v3: malformed, v2: malformed, issuedAt: "ISS058"},
	{value: "2025-01-01T09:00:00+23:59", v3: malformed, v2: malformed, issuedAt: "ISS058", whyIssuedAt: "offset"},
	{value: "2025-01-01T09:00:00+99:00", v3: malformed, v2: malformed, issuedAt: "ISS058"},
	{value: "2025-01-01T09:00:00-14:00", v3: accepted, v2: accepted, issuedAt: accepted},
	{value: "2025-01-01T09:00:00+14:00", v3: accepted, v2: accepted, issuedAt: accepted},
	{value: "2025-01-01T09:00:00+14:01", v3: malformed, v2: malformed, issuedAt: "ISS058", whyIssuedAt: "offset"},
	{value: "9999-12-31T23:59:59-14:00", v3: outOfRange, v2: outOfRange, issuedAt: "ISS059"}, // 10000-01-01 in UTC
	{value: "9999-12-31T23:59:59Z", v3: outOfRange, v2: outOfRange, issuedAt: "ISS059"},
	{value: "9999-12-30T23:59:59Z", v3: accepted, v2: accepted, issuedAt: "ISS059"},
	{value: "1899-12-31T23:59:59Z", v3: outOfRange, v2: outOfRange, issuedAt: outOfRange, whyIssuedAt: "earlier than 1970"},
	{value: "1900-01-01T00:00:00+01:00", v3: outOfRange, v2: outOfRange, issuedAt: outOfRange, whyIssuedAt: "earlier than 1970"},
	{value: "1900-01-01T00:00:00Z", v3: accepted, v2: accepted, issuedAt: outOfRange, whyIssuedAt: "earlier than 1970"},
	{value: "1969-12-31T23:59:59Z", v3: accepted, v2: accepted, issuedAt: outOfRange, whyIssuedAt: "earlier than 1970"},
	{value: "1970-01-01T00:00:00Z", v3: accepted, v2: accepted, issuedAt: accepted},
	{value: "2025-01-01T09:00:00", v3: malformed, v2: accepted, issuedAt: "ISS058"},   // no zone: v2's local form
	{value: "0000-01-01T00:00:00", v3: malformed, v2: outOfRange, issuedAt: "ISS058"}, // v2's local form, year 0
	{value: "10000-01-01T00:00:00", v3: malformed, v2: malformed, issuedAt: "ISS058"},
	{value: "2025-01-01", v3: malformed, v2: malformed, issuedAt: "ISS058"},
	{value: "now", v3: malformed, v2: malformed, issuedAt: "ISS058"},
}

// hostileDates are the calendar dates of the date inputs (the stats routes' from and to, a bulk renewal's
// expiringBefore): 1900-01-01 to 9999-12-30.
var hostileDates = []struct{ value, want string }{
	{"0000-01-01", outOfRange}, {"0001-01-01", outOfRange}, {"1899-12-31", outOfRange}, {"1900-01-01", accepted}, {"2024-02-29", accepted},
	{"9999-12-30", accepted}, {"9999-12-31", outOfRange}, {"10000-01-01", malformed}, {"-0001-01-01", malformed}, {"2025-02-30", malformed},
	{"2025-02-29", malformed}, {"2025-1-1", malformed}, {"2025-01-01T00:00:00Z", malformed}, {"0000-00-00", malformed},
}

// TestDates_HostileInputs tries every date and datetime input of both versions with hostile values: each answers
// 200, or 400 with the contract's error body and the code of the table naming the field, never a 500, and a dry
// run reports issuedAt's problem with the code and status the real request answers.
func TestDates_HostileInputs(t *testing.T) {
	f := newIssFixture(t)
	setCredits(t, f.d, f.org, 1_000_000)
	manager := f.keys["manager"]
	expect := func(t *testing.T, r response, path, want, field string) {
		t.Helper()
		if want == accepted {
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
			return
		}
		requireError(t, r, path, http.StatusBadRequest, want, field)
	}

	for _, tc := range hostileDatetimes {
		for _, v := range []string{"v3", "v2"} {
			want := tc.v3
			if v == "v2" {
				want = tc.v2
			}
			t.Run(v+" "+tc.value, func(t *testing.T) {
				for _, filter := range []string{"startAt", "endAt"} {
					path := "/public/" + v + "/assertions"
					expect(t, f.do(t, http.MethodGet, path+"?"+filter+"="+url.QueryEscape(tc.value), manager, ""), path, want, filter)
				}
				for _, field := range []string{"startsAt", "endsAt"} {
					path := "/public/" + v + "/programs"
					body := f.expand(`{"name":"Dated","categoryCode":"EDUCATION","imageId":"{image}","` + field + `":` + quote(tc.value) + `}`)
					expect(t, f.do(t, http.MethodPost, path, manager, body), path, want, field)
				}
				path := "/public/" + v + "/badges"
				body := overlay(t, badgeBody("Fixed", f.vars["{image}"], f.vars["{program}"]),
					`{"expirationPolicy":{"type":"FIXED","fixedExpiredAt":`+quote(tc.value)+`}}`)
				expect(t, f.do(t, http.MethodPost, path, manager, body), path, want, "expirationPolicy.fixedExpiredAt")
			})
		}
		t.Run("issuedAt "+tc.value, func(t *testing.T) {
			path := f.issuancePath("v3", "{badge}")
			body := `{"recipients":[` + rcpt("Dated", "dated@example.com") + `],"programId":"{program}","issuedAt":` + quote(tc.value) + `}`
			dry := f.postIssuanceTo(t, path+"?dryRun=true", manager, "dry-"+tc.value, body)
			require.Equal(t, http.StatusOK, dry.Status, "%s", dry.Raw)
			real := f.postIssuance(t, "v3", "{badge}", "manager", "dated-"+tc.value, body)
			problems := jget(t, dry.Body, "data.problems").([]any)
			if tc.issuedAt == accepted {
				require.Equal(t, http.StatusOK, real.Status, "%s", real.Raw)
				require.Equal(t, true, jget(t, dry.Body, "data.wouldSucceed"), "%s", dry.Raw)
				require.Empty(t, problems)
				return
			}
			requireError(t, real, path, http.StatusBadRequest, tc.issuedAt, "issuedAt")
			if tc.whyIssuedAt != "" {
				require.Contains(t, jget(t, real.Body, "error.message"), tc.whyIssuedAt)
			}
			require.Equal(t, false, jget(t, dry.Body, "data.wouldSucceed"))
			require.Len(t, problems, 1, "%s", dry.Raw)
			p := problems[0].(map[string]any)
			require.Equal(t, tc.issuedAt, p["code"], "the dry run reports what the request answers")
			require.EqualValues(t, http.StatusBadRequest, p["status"])
			require.Equal(t, "issuedAt", p["field"])
		})
	}

	for _, tc := range hostileDates {
		t.Run("date "+tc.value, func(t *testing.T) {
			for _, route := range []string{"/badges/{badge}", "/issuances/{issuance}", "/programs/{program}", "/assertions/{assertion}"} {
				path := f.expand("/public/v3" + route + "/stats")
				path = f.expandStatsSubjects(t, path)
				for _, q := range []string{"from=" + url.QueryEscape(tc.value) + "&to=" + url.QueryEscape(tc.value), "to=" + url.QueryEscape(tc.value)} {
					r := f.do(t, http.MethodGet, path+"?"+q, f.keys["viewer"], "")
					field := "to"
					if q[:4] == "from" {
						field = "from"
					}
					expect(t, r, path, tc.want, field)
				}
			}
			path := f.expand("/public/v3/badges/{badge1m}/renewals")
			r := f.postIssuanceTo(t, path, manager, "renew-"+tc.value, `{"expiringBefore":`+quote(tc.value)+`}`)
			if tc.want == accepted {
				// The date is read; no assertion of the badge expires before it.
				requireError(t, r, path, http.StatusBadRequest, outOfRange, "expiringBefore")
				require.Contains(t, jget(t, r.Body, "error.message"), "no renewable assertion")
				return
			}
			requireError(t, r, path, http.StatusBadRequest, tc.want, "expiringBefore")
		})
	}
}

// expandStatsSubjects fills the stats routes' {issuance} and {assertion} with an issuance of the fixture and one of
// its assertions (made once).
func (f *issFixture) expandStatsSubjects(t *testing.T, path string) string {
	t.Helper()
	if _, made := f.vars["{issuance}"]; !made {
		data := f.mustIssue(t, "v3", "{badge}", "manager", "stats-subject", issuanceBody("{program}", rcpt("Stats", "stats@example.com")))
		f.vars["{issuance}"] = jstr(t, data, "id")
		var id string
		require.NoError(t, f.d.Pool.QueryRow(t.Context(), "SELECT id FROM assertions WHERE issuance_id = $1", f.vars["{issuance}"]).Scan(&id))
		f.vars["{assertion}"] = id
	}
	return f.expand(path)
}

// The stats routes answered 500 for year 0 (Postgres refuses it as a date): now 400 COM006 naming both days.
func TestDates_StatsYearZeroIsRefused(t *testing.T) {
	f := newIssFixture(t)
	path := f.expand("/public/v3/badges/{badge}/stats")
	r := f.do(t, http.MethodGet, path+"?from=0000-01-01&to=0000-12-31", f.keys["viewer"], "")
	requireError(t, r, path, http.StatusBadRequest, "COM006", "from", "to")
}

// Values at the bounds are stored and written back as four-digit years in both versions: the upper bound leaves
// the last day of 9999 out so that v2, which writes the service time zone (Seoul, +09:00), stays in year 9999.
func TestDates_BoundsRoundTrip(t *testing.T) {
	f := newIssFixture(t)
	data := f.mustOK(t, http.MethodPost, "/public/v3/programs", f.keys["manager"], f.expand(
		`{"name":"Long","categoryCode":"EDUCATION","imageId":"{image}","startsAt":"1900-01-01T00:00:00Z","endsAt":"9999-12-30T23:59:59Z"}`))
	id := jstr(t, data, "id")
	four := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T`)
	for _, v := range []string{"v3", "v2"} {
		got := f.mustOK(t, http.MethodGet, "/public/"+v+"/programs/"+id, f.keys["viewer"], "")
		for _, field := range []string{"startsAt", "endsAt"} {
			require.Regexp(t, four, got[field], "%s %s", v, field)
		}
	}
	got := f.mustOK(t, http.MethodGet, "/public/v3/programs/"+id, f.keys["viewer"], "")
	require.Equal(t, "1900-01-01T00:00:00Z", got["startsAt"])
	require.Equal(t, "9999-12-30T23:59:59Z", got["endsAt"])
	require.Equal(t, "9999-12-31T08:59:59", f.mustOK(t, http.MethodGet, "/public/v2/programs/"+id, f.keys["viewer"], "")["endsAt"])

	// The widest filters read.
	f.mustOK(t, http.MethodGet, "/public/v3/assertions?startAt=1900-01-01T00:00:00Z&endAt=9999-12-30T23:59:59Z", f.keys["viewer"], "")
	f.mustOK(t, http.MethodGet, "/public/v2/assertions?startAt=1900-01-01T09:00:00&endAt=9999-12-30T23:59:59", f.keys["viewer"], "")
	f.mustOK(t, http.MethodGet, f.expand("/public/v3/badges/{badge}/stats?from=9999-01-01&to=9999-12-30"), f.keys["viewer"], "")
}
