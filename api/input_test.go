package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBadInput: bodies and paths a client may get wrong are answered with the contract's error body, never a 5xx.
func TestBadInput(t *testing.T) {
	f := newFixture(t)
	var cases []apiCase
	writes := []struct{ method, path string }{
		{http.MethodPost, "/programs"},
		{http.MethodPatch, "/programs/{program}"},
		{http.MethodPost, "/badges"},
		{http.MethodPatch, "/badges/{badge}"},
	}
	bodies := []struct {
		name, body string
		status     int
		code       string
	}{
		{"malformed json", `{"name":`, 400, "COM002"},
		{"not json", `name=x`, 400, "COM002"},
		{"null", `null`, 400, "COM002"},
		{"array", `[]`, 400, "COM002"},
		{"array of objects", `[{"name":"x"}]`, 400, "COM002"},
		{"string", `"x"`, 400, "COM002"},
		{"number", `42`, 400, "COM002"},
		{"trailing data", `{} {}`, 400, "COM002"},
		{"empty", ``, 400, "COM006"},
		{"blank", "  \n ", 400, "COM006"},
		{"unknown field", `{"bogus":true}`, 400, "COM006"},
		{"name a number", `{"name":5}`, 400, "COM002"},
		{"name an object", `{"name":{"ko":"x"}}`, 400, "COM002"},
		{"name an array", `{"name":["x"]}`, 400, "COM002"},
		{"image id a number", `{"imageId":7}`, 400, "COM002"},
	}
	for _, w := range writes {
		for _, b := range bodies {
			c := apiCase{name: w.method + " " + w.path + " " + b.name, method: w.method, path: w.path, body: b.body,
				key: "manager", wantStatus: b.status, wantCode: b.code}
			if b.name == "unknown field" {
				c.wantFields = []string{"bogus"}
			}
			if b.name == "name a number" || b.name == "name an object" {
				c.wantFields = []string{"name"}
			}
			cases = append(cases, c)
		}
	}
	// Program-only types.
	cases = append(cases,
		apiCase{name: "visible a string", method: http.MethodPatch, path: "/programs/{program}", key: "manager",
			body: `{"isVisibleAtOrganizationPage":"yes"}`, wantStatus: 400, wantCode: "COM002", wantFields: []string{"isVisibleAtOrganizationPage"}},
		apiCase{name: "visible a number", method: http.MethodPatch, path: "/programs/{program}", key: "manager",
			body: `{"isVisibleAtOrganizationPage":1}`, wantStatus: 400, wantCode: "COM002", wantFields: []string{"isVisibleAtOrganizationPage"}},
		apiCase{name: "criteria an object", method: http.MethodPatch, path: "/badges/{badge}", key: "manager",
			body: `{"criteria":{"category":"OTHER","value":"x"}}`, wantStatus: 400, wantCode: "COM002", wantFields: []string{"criteria"}},
		apiCase{name: "skills a string", method: http.MethodPatch, path: "/badges/{badge}", key: "manager",
			body: `{"skills":"Go"}`, wantStatus: 400, wantCode: "COM002", wantFields: []string{"skills"}},
		apiCase{name: "months a boolean", method: http.MethodPatch, path: "/badges/{badge}", key: "manager",
			body: `{"expirationPolicy":{"relativeExpirationMonths":true}}`, wantStatus: 400, wantCode: "COM002",
			wantFields: []string{"expirationPolicy.relativeExpirationMonths"}},
	)
	// Ids in paths.
	for _, p := range []struct{ method, path string }{
		{http.MethodGet, "/programs/nope"},
		{http.MethodGet, "/programs/123"},
		{http.MethodPatch, "/programs/{program}x"},
		{http.MethodDelete, "/programs/not-a-uuid-but-36-characters-long-xxxx"},
		{http.MethodGet, "/badges/nope"},
		{http.MethodPatch, "/badges/zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"},
		{http.MethodDelete, "/badges/{badge}0"},
	} {
		cases = append(cases, apiCase{name: "bad uuid " + p.method + " " + p.path, method: p.method, path: p.path,
			body: `{}`, key: "manager", wantStatus: 400, wantCode: "COM002"})
	}
	cases = append(cases,
		apiCase{name: "unknown route", method: http.MethodGet, path: "/nothing-here", key: "viewer", wantStatus: 404, wantCode: "NOT_FOUND"},
		apiCase{name: "unknown nested route", method: http.MethodGet, path: "/programs/{program}/badges", key: "viewer", wantStatus: 404, wantCode: "NOT_FOUND"},
		apiCase{name: "method not allowed", method: http.MethodPut, path: "/programs/{program}", body: `{}`, key: "manager", wantStatus: 405, wantCode: "METHOD_NOT_ALLOWED"},
	)
	f.run(t, cases)

	t.Run("outside the versions", func(t *testing.T) {
		// (The root is the service's short page, catalog.Root: the url of test-mode issuers.)
		for _, p := range []string{"/public", "/public/v1/organization", "/public/v4/organization", "/organization"} {
			r := f.do(t, http.MethodGet, p, f.keys["viewer"], "")
			requireError(t, r, p, http.StatusNotFound, "NOT_FOUND")
		}
	})
	t.Run("body over 1 MiB", func(t *testing.T) {
		big := `{"name":"` + strings.Repeat("a", 1<<20+10) + `","categoryCode":"EDUCATION","imageId":"` + f.vars["{image}"] + `"}`
		for _, v := range testVersions {
			for _, w := range writes {
				path := "/public/" + v + f.expand(w.path)
				r := f.do(t, w.method, path, f.keys["manager"], big)
				requireError(t, r, path, http.StatusRequestEntityTooLarge, "COM006")
			}
		}
	})
	t.Run("body just under 1 MiB is read", func(t *testing.T) {
		// A valid JSON object padded with spaces: the limit counts bytes, and this one is within it.
		body := `{"name":"Padded"}` + strings.Repeat(" ", 1<<20-len(`{"name":"Padded"}`))
		data := f.mustOK(t, http.MethodPatch, "/public/v3/badges/"+f.vars["{badge}"], f.keys["manager"], body)
		require.Equal(t, "Padded", data["name"])
	})
}

// TestDatetimes: v2 speaks local Seoul time without offset, v3 UTC instants; the same stored instant reads back in
// each version's form.
func TestDatetimes(t *testing.T) {
	f := newFixture(t)
	create := func(t *testing.T, v, startsAt string) map[string]any {
		return f.mustOK(t, http.MethodPost, "/public/"+v+"/programs", f.keys["manager"],
			f.expand(`{"name":"Timed","categoryCode":"EDUCATION","imageId":"{image}","startsAt":"`+startsAt+`"}`))
	}
	read := func(t *testing.T, v, id string) map[string]any {
		return f.mustOK(t, http.MethodGet, "/public/"+v+"/programs/"+id, f.keys["viewer"], "")
	}
	for _, tc := range []struct{ name, version, in string }{
		{"v2 local time is Seoul time", "v2", "2025-03-01T09:00:00"},
		{"v3 with offset", "v3", "2025-03-01T09:00:00+09:00"},
		{"v3 with Z", "v3", "2025-03-01T00:00:00Z"},
		{"v3 with fractional seconds", "v3", "2025-03-01T00:00:00.000Z"},
		{"v3 with negative offset", "v3", "2025-02-28T19:00:00-05:00"},
		{"v2 with an explicit offset", "v2", "2025-03-01T00:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := create(t, tc.version, tc.in)
			id := jstr(t, data, "id")
			want := map[string]string{"v2": "2025-03-01T09:00:00", "v3": "2025-03-01T00:00:00Z"}
			require.Equal(t, want[tc.version], data["startsAt"], "create answers in its own version's form")
			require.Equal(t, want["v2"], read(t, "v2", id)["startsAt"])
			require.Equal(t, want["v3"], read(t, "v3", id)["startsAt"])
		})
	}
	t.Run("createdAt per version", func(t *testing.T) {
		id := jstr(t, create(t, "v3", "2025-03-01T00:00:00Z"), "id")
		c2, c3 := jstr(t, read(t, "v2", id), "createdAt"), jstr(t, read(t, "v3", id), "createdAt")
		require.Regexp(t, v2Time, c2)
		require.Regexp(t, v3Time, c3)
		instant, err := time.Parse(time.RFC3339, c3)
		require.NoError(t, err)
		seoul, err := time.LoadLocation("Asia/Seoul")
		require.NoError(t, err)
		require.Equal(t, instant.In(seoul).Format("2006-01-02T15:04:05"), c2, "the same instant, read in Seoul")
		require.WithinDuration(t, time.Now(), instant, 10*time.Minute, "createdAt is the database time, not the fixed clock")
	})

	bad := func(name, version, field, value, code string) apiCase {
		return apiCase{name: name, version: version, method: http.MethodPost, path: "/programs", key: "manager",
			body:       `{"name":"T","categoryCode":"EDUCATION","imageId":"{image}","` + field + `":"` + value + `"}`,
			wantStatus: 400, wantCode: code, wantFields: []string{field}}
	}
	f.run(t, []apiCase{
		bad("v3 startsAt without offset", "v3", "startsAt", "2025-03-01T09:00:00", "COM002"),
		bad("v3 endsAt without offset", "v3", "endsAt", "2025-03-01T09:00:00", "COM002"),
		bad("date only", "", "startsAt", "2025-03-01", "COM002"),
		bad("not a date", "", "startsAt", "yesterday", "COM002"),
		bad("month 13", "", "startsAt", "2025-13-01T00:00:00Z", "COM002"),
		bad("offset without colon", "", "endsAt", "2025-03-01T00:00:00+0900", "COM002"),
		bad("space separator", "", "startsAt", "2025-03-01 09:00:00", "COM002"),
		{name: "startsAt a number", method: http.MethodPost, path: "/programs", key: "manager",
			body:       `{"name":"T","categoryCode":"EDUCATION","imageId":"{image}","startsAt":1740787200}`,
			wantStatus: 400, wantCode: "COM002", wantFields: []string{"startsAt"}},
		{name: "v3 PATCH without offset", version: "v3", method: http.MethodPatch, path: "/programs/{program}", key: "manager",
			body: `{"endsAt":"2030-01-01T00:00:00"}`, wantStatus: 400, wantCode: "COM002", wantFields: []string{"endsAt"}},
	})
}

// TestCrossOrganization: another organization's ids behave as not found, and its images cannot be referenced.
func TestCrossOrganization(t *testing.T) {
	f := newFixture(t)
	programBody := `"name":"P","categoryCode":"EDUCATION","imageId":"{image}"`
	cases := []apiCase{}
	for _, key := range []string{"viewer", "manager"} {
		cases = append(cases,
			apiCase{name: key + " get program", method: http.MethodGet, path: "/programs/{otherProgram}", key: key, wantStatus: 404, wantCode: "PRG001"},
			apiCase{name: key + " get badge", method: http.MethodGet, path: "/badges/{otherBadge}", key: key, wantStatus: 404, wantCode: "BDG001"},
			apiCase{name: key + " get missing program", method: http.MethodGet, path: "/programs/{missing}", key: key, wantStatus: 404, wantCode: "PRG001"},
			apiCase{name: key + " get missing badge", method: http.MethodGet, path: "/badges/{missing}", key: key, wantStatus: 404, wantCode: "BDG001"},
		)
	}
	cases = append(cases,
		apiCase{name: "patch program", method: http.MethodPatch, path: "/programs/{otherProgram}", body: `{"name":"mine"}`, key: "manager", wantStatus: 404, wantCode: "PRG001"},
		apiCase{name: "delete program", method: http.MethodDelete, path: "/programs/{otherProgram}", key: "owner", wantStatus: 404, wantCode: "PRG001"},
		apiCase{name: "patch badge", method: http.MethodPatch, path: "/badges/{otherBadge}", body: `{"name":"mine"}`, key: "manager", wantStatus: 404, wantCode: "BDG001"},
		apiCase{name: "delete badge", method: http.MethodDelete, path: "/badges/{otherBadge}", key: "owner", wantStatus: 404, wantCode: "BDG001"},
		apiCase{name: "create program with their image", method: http.MethodPost, path: "/programs", key: "manager",
			body: `{"name":"P","categoryCode":"EDUCATION","imageId":"{otherImage}"}`, wantStatus: 400, wantCode: "COM006", wantFields: []string{"imageId"}},
		apiCase{name: "patch program with their image", method: http.MethodPatch, path: "/programs/{program}", key: "manager",
			body: `{"imageId":"{otherImage}"}`, wantStatus: 400, wantCode: "COM006", wantFields: []string{"imageId"}},
		apiCase{name: "create badge with their image", method: http.MethodPost, path: "/badges", key: "manager",
			body: badgeBody("B", "{otherImage}"), wantStatus: 400, wantCode: "COM006", wantFields: []string{"imageId"}},
		apiCase{name: "patch badge with their signature image", method: http.MethodPatch, path: "/badges/{badge}", key: "manager",
			body: `{"signatureImageId":"{otherImage}"}`, wantStatus: 400, wantCode: "COM006", wantFields: []string{"signatureImageId"}},
		apiCase{name: "create program with their badge", method: http.MethodPost, path: "/programs", key: "manager",
			body: `{` + programBody + `,"badgeIds":["{otherBadge}"]}`, wantStatus: 404, wantCode: "BDG001"},
		apiCase{name: "create program with our and their badge", method: http.MethodPost, path: "/programs", key: "manager",
			body: `{` + programBody + `,"badgeIds":["{badge}","{otherBadge}"]}`, wantStatus: 404, wantCode: "BDG001"},
		apiCase{name: "patch program with their badge", method: http.MethodPatch, path: "/programs/{program}", key: "manager",
			body: `{"badgeIds":["{otherBadge}"]}`, wantStatus: 404, wantCode: "BDG001"},
		apiCase{name: "create badge with their program", method: http.MethodPost, path: "/badges", key: "manager",
			body: badgeBody("B", "{image}", "{otherProgram}"), wantStatus: 404, wantCode: "PRG001"},
		apiCase{name: "patch badge with their program", method: http.MethodPatch, path: "/badges/{badge}", key: "manager",
			body: `{"programIds":["{otherProgram}"]}`, wantStatus: 404, wantCode: "PRG001"},
	)
	programs, badges, links := countRows(t, f.d, "programs", f.org), countRows(t, f.d, "badges", f.org), countRows(t, f.d, "program_badges", f.org)
	otherBefore := f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{otherProgram}"], f.keys["otherManager"], "")
	f.run(t, cases)

	t.Run("nothing was written", func(t *testing.T) {
		require.Equal(t, programs, countRows(t, f.d, "programs", f.org))
		require.Equal(t, badges, countRows(t, f.d, "badges", f.org))
		require.Equal(t, links, countRows(t, f.d, "program_badges", f.org))
		require.Equal(t, 1, countRows(t, f.d, "program_badges", f.other))
		require.Equal(t, otherBefore, f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{otherProgram}"], f.keys["otherManager"], ""))
		ob := f.mustOK(t, http.MethodGet, "/public/v3/badges/"+f.vars["{otherBadge}"], f.keys["otherManager"], "")
		require.Equal(t, "Other badge", ob["name"])
		require.Equal(t, []string{f.vars["{otherProgram}"]}, jstrings(t, ob, "programIds"))
	})
	for _, v := range testVersions {
		t.Run("lists hold only the key's organization/"+v, func(t *testing.T) {
			for path, own := range map[string]string{"/programs": f.vars["{program}"], "/badges": f.vars["{badge}"]} {
				data := f.mustOK(t, http.MethodGet, "/public/"+v+path+"?size=100", f.keys["viewer"], "")
				var ids []string
				for i := range data["items"].([]any) {
					ids = append(ids, jstr(t, data["items"].([]any)[i], "id"))
				}
				require.Equal(t, []string{own}, ids, path)
				require.Equal(t, float64(1), jget(t, data, "pagination.totalElement"))
			}
		})
	}
}

// TestTransactions: a create or update that fails after some checks passed leaves no row behind.
func TestTransactions(t *testing.T) {
	f := newFixture(t)
	programs, badges, links := countRows(t, f.d, "programs", f.org), countRows(t, f.d, "badges", f.org), countRows(t, f.d, "program_badges", f.org)
	for _, v := range testVersions {
		base := "/public/" + v
		t.Run("program with a valid image and one unknown badge/"+v, func(t *testing.T) {
			r := f.do(t, http.MethodPost, base+"/programs", f.keys["manager"], f.expand(
				`{"name":"Half","categoryCode":"EDUCATION","imageId":"{image}","badgeIds":["{badge}","{missing}"]}`))
			requireError(t, r, base+"/programs", 404, "BDG001")
		})
		t.Run("badge with valid images and one unknown program/"+v, func(t *testing.T) {
			r := f.do(t, http.MethodPost, base+"/badges", f.keys["manager"], f.expand(
				strings.Replace(badgeBody("Half", "{image}", "{program}", "{missing}"), `"imageId"`, `"signatureImageId":"{image2}","imageId"`, 1)))
			requireError(t, r, base+"/badges", 404, "PRG001")
		})
		t.Run("badge update with a valid change and a bad link/"+v, func(t *testing.T) {
			path := base + "/badges/" + f.vars["{badge}"]
			r := f.do(t, http.MethodPatch, path, f.keys["manager"], f.expand(`{"name":"Changed","expirationPolicy":null,"programIds":["{missing}"]}`))
			requireError(t, r, path, 404, "PRG001")
			require.Equal(t, "Fixture badge", f.mustOK(t, http.MethodGet, path, f.keys["viewer"], "")["name"])
		})
		t.Run("program update with a valid change and a bad link/"+v, func(t *testing.T) {
			path := base + "/programs/" + f.vars["{program}"]
			r := f.do(t, http.MethodPatch, path, f.keys["manager"], f.expand(`{"name":"Changed","badgeIds":["{missing}"]}`))
			requireError(t, r, path, 404, "BDG001")
			data := f.mustOK(t, http.MethodGet, path, f.keys["viewer"], "")
			require.Equal(t, "Fixture program", data["name"])
			require.Equal(t, []string{f.vars["{badge}"]}, jstrings(t, data, "badgeIds"))
		})
	}
	require.Equal(t, programs, countRows(t, f.d, "programs", f.org))
	require.Equal(t, badges, countRows(t, f.d, "badges", f.org))
	require.Equal(t, links, countRows(t, f.d, "program_badges", f.org))
}
