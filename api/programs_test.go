package api_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

var (
	v2Time = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`)
	v3Time = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)
)

// timeFormat is the response datetime form of a version.
func timeFormat(v string) *regexp.Regexp {
	if v == "v2" {
		return v2Time
	}
	return v3Time
}

// imageObject is the image object the API returns for an image id.
func imageObject(id string) map[string]any {
	base := baseURL + "/media/" + id + "/"
	return map[string]any{"id": id, "urls": map[string]any{"original": base + "original", "medium": base + "medium", "small": base + "small"}}
}

func TestPrograms_Create(t *testing.T) {
	f := newFixture(t)
	starts := map[string]string{"v2": "2025-03-01T09:00:00", "v3": "2025-03-01T00:00:00Z"}
	ends := map[string]string{"v2": "2025-06-30T18:00:00", "v3": "2025-06-30T09:00:00Z"}
	for _, v := range testVersions {
		t.Run("all fields/"+v, func(t *testing.T) {
			body := f.expand(`{"name":"  Go Bootcamp  ","description":"Ten weeks of Go","url":"https://example.com/go",` +
				`"categoryCode":"EDUCATION","startsAt":"` + starts[v] + `","endsAt":"` + ends[v] + `",` +
				`"isVisibleAtOrganizationPage":true,"imageId":"{image}","badgeIds":["{badge}"]}`)
			data := f.mustOK(t, http.MethodPost, "/public/"+v+"/programs", f.keys["manager"], body)
			id := jstr(t, data, "id")
			_, err := uuid.Parse(id)
			require.NoError(t, err)
			require.Regexp(t, timeFormat(v), data["createdAt"])
			require.Regexp(t, timeFormat(v), data["updatedAt"])
			require.Equal(t, map[string]any{
				"id": id, "name": "Go Bootcamp", "description": "Ten weeks of Go", "url": "https://example.com/go",
				"categoryCode": "EDUCATION", "startsAt": starts[v], "endsAt": ends[v], "publishStatusCode": "PUBLISHED",
				"isVisibleAtOrganizationPage": true, "image": imageObject(f.vars["{image}"]),
				"badgeIds": []any{f.vars["{badge}"]}, "createdAt": data["createdAt"], "updatedAt": data["updatedAt"],
			}, data)

			got := f.mustOK(t, http.MethodGet, "/public/"+v+"/programs/"+id, f.keys["viewer"], "")
			require.Equal(t, data, got, "GET answers what create answered")
			badge := f.mustOK(t, http.MethodGet, "/public/"+v+"/badges/"+f.vars["{badge}"], f.keys["viewer"], "")
			require.Contains(t, jstrings(t, badge, "programIds"), id, "the link shows from the badge side too")
		})
		t.Run("required fields only/"+v, func(t *testing.T) {
			data := f.mustOK(t, http.MethodPost, "/public/"+v+"/programs", f.keys["owner"],
				f.expand(`{"name":"Minimal","categoryCode":"EDUCATION","imageId":"{image}"}`))
			for _, k := range []string{"description", "url", "startsAt", "endsAt"} {
				require.Contains(t, data, k)
				require.Nil(t, data[k], k)
			}
			require.Equal(t, false, data["isVisibleAtOrganizationPage"])
			require.Equal(t, []any{}, data["badgeIds"])
			require.Equal(t, "PUBLISHED", data["publishStatusCode"])
		})
	}

	valid := `"name":"P","categoryCode":"EDUCATION","imageId":"{image}"`
	long := strings.Repeat("n", 201)
	post := func(name, body string, status int, code string, fields ...string) apiCase {
		return apiCase{name: name, method: http.MethodPost, path: "/programs", body: body, key: "manager",
			wantStatus: status, wantCode: code, wantFields: fields}
	}
	f.run(t, []apiCase{
		post("empty object", `{}`, 400, "COM006", "name", "categoryCode", "imageId"),
		post("name missing", `{"categoryCode":"EDUCATION","imageId":"{image}"}`, 400, "COM006", "name"),
		post("name empty", `{"name":"","categoryCode":"EDUCATION","imageId":"{image}"}`, 400, "COM006", "name"),
		post("name blank", `{"name":"   ","categoryCode":"EDUCATION","imageId":"{image}"}`, 400, "COM006", "name"),
		post("name null", `{"name":null,"categoryCode":"EDUCATION","imageId":"{image}"}`, 400, "COM006", "name"),
		post("name too long", `{"name":"`+long+`","categoryCode":"EDUCATION","imageId":"{image}"}`, 400, "COM006", "name"),
		post("name number", `{"name":5,"categoryCode":"EDUCATION","imageId":"{image}"}`, 400, "COM002", "name"),
		post("category unknown", `{"name":"P","categoryCode":"SPORTS","imageId":"{image}"}`, 400, "COM006", "categoryCode"),
		post("category null", `{"name":"P","categoryCode":null,"imageId":"{image}"}`, 400, "COM006", "categoryCode"),
		post("image not a uuid", `{"name":"P","categoryCode":"EDUCATION","imageId":"img-1"}`, 400, "COM002", "imageId"),
		post("image unknown", `{"name":"P","categoryCode":"EDUCATION","imageId":"{missing}"}`, 400, "COM006", "imageId"),
		post("image null", `{"name":"P","categoryCode":"EDUCATION","imageId":null}`, 400, "COM006", "imageId"),
		post("url not absolute", `{`+valid+`,"url":"example.com/x"}`, 400, "COM002", "url"),
		post("url javascript", `{`+valid+`,"url":"javascript:alert(1)"}`, 400, "COM002", "url"),
		post("visible not a boolean", `{`+valid+`,"isVisibleAtOrganizationPage":"yes"}`, 400, "COM002", "isVisibleAtOrganizationPage"),
		post("visible null", `{`+valid+`,"isVisibleAtOrganizationPage":null}`, 400, "COM006", "isVisibleAtOrganizationPage"),
		post("badgeIds null", `{`+valid+`,"badgeIds":null}`, 400, "COM006", "badgeIds"),
		post("badgeIds not an array", `{`+valid+`,"badgeIds":"{badge}"}`, 400, "COM002", "badgeIds"),
		post("badgeIds bad item", `{`+valid+`,"badgeIds":["{badge}","x"]}`, 400, "COM002", "badgeIds[1]"),
		post("badgeIds duplicate", `{`+valid+`,"badgeIds":["{badge}","{badge}"]}`, 400, "COM006", "badgeIds[1]"),
		post("badgeIds unknown", `{`+valid+`,"badgeIds":["{missing}"]}`, 404, "BDG001"),
		post("publishStatusCode sent", `{`+valid+`,"publishStatusCode":"PUBLISHED"}`, 400, "COM006", "publishStatusCode"),
		post("unknown field", `{`+valid+`,"color":"red"}`, 400, "COM006", "color"),
		{name: "endsAt before startsAt", version: "v2", method: http.MethodPost, path: "/programs", key: "manager",
			body:       `{` + valid + `,"startsAt":"2025-03-02T00:00:00","endsAt":"2025-03-01T23:59:59"}`,
			wantStatus: 400, wantCode: "COM006", wantFields: []string{"endsAt"}},
		{name: "endsAt before startsAt", version: "v3", method: http.MethodPost, path: "/programs", key: "manager",
			body:       `{` + valid + `,"startsAt":"2025-03-02T00:00:00+09:00","endsAt":"2025-03-01T14:59:59Z"}`,
			wantStatus: 400, wantCode: "COM006", wantFields: []string{"endsAt"}},
		post("several problems at once", `{"name":"","categoryCode":"X","imageId":"y","foo":1}`, 400, "COM002",
			"name", "categoryCode", "imageId", "foo"),
	})
	t.Run("equal start and end accepted", func(t *testing.T) {
		f.mustOK(t, http.MethodPost, "/public/v3/programs", f.keys["manager"],
			f.expand(`{`+valid+`,"startsAt":"2025-03-01T00:00:00Z","endsAt":"2025-03-01T09:00:00+09:00"}`))
	})
}

func TestPrograms_List(t *testing.T) {
	f := newFixture(t)
	// The fixture made one program of each organization; delete ours so the list holds exactly the five below.
	f.mustOK(t, http.MethodDelete, "/public/v3/programs/"+f.vars["{program}"], f.keys["manager"], "")
	var ids []string
	for _, name := range []string{"charlie", "alpha", "echo", "bravo", "delta"} {
		ids = append(ids, f.mustProgram(t, "manager", name, f.vars["{image}"]))
	}
	names := func(t *testing.T, data map[string]any) []string {
		var out []string
		for i := range data["items"].([]any) {
			out = append(out, jstr(t, data, "items."+strconv.Itoa(i)+".name"))
		}
		return out
	}
	pagination := func(page, size, total, pages int, first, last, empty bool) map[string]any {
		return map[string]any{"page": float64(page), "size": float64(size), "totalElement": float64(total),
			"totalPages": float64(pages), "first": first, "last": last, "empty": empty}
	}
	for _, v := range testVersions {
		list := func(t *testing.T, query string) map[string]any {
			return f.mustOK(t, http.MethodGet, "/public/"+v+"/programs"+query, f.keys["viewer"], "")
		}
		t.Run("default sort is newest first/"+v, func(t *testing.T) {
			data := list(t, "")
			require.Equal(t, []string{"delta", "bravo", "echo", "alpha", "charlie"}, names(t, data))
			require.Equal(t, pagination(1, 20, 5, 1, true, true, false), data["pagination"])
			require.Equal(t, ids[4], jstr(t, data, "items.0.id"))
		})
		t.Run("last partial page/"+v, func(t *testing.T) {
			data := list(t, "?page=3&size=2")
			require.Equal(t, []string{"charlie"}, names(t, data))
			require.Equal(t, pagination(3, 2, 5, 3, false, true, false), data["pagination"])
		})
		t.Run("first page/"+v, func(t *testing.T) {
			data := list(t, "?page=1&size=2")
			require.Equal(t, []string{"delta", "bravo"}, names(t, data))
			require.Equal(t, pagination(1, 2, 5, 3, true, false, false), data["pagination"])
		})
		t.Run("middle page/"+v, func(t *testing.T) {
			data := list(t, "?page=2&size=2")
			require.Equal(t, []string{"echo", "alpha"}, names(t, data))
			require.Equal(t, pagination(2, 2, 5, 3, false, false, false), data["pagination"])
		})
		t.Run("past the end/"+v, func(t *testing.T) {
			data := list(t, "?page=4&size=2")
			require.Equal(t, []any{}, data["items"])
			require.Equal(t, pagination(4, 2, 5, 3, false, true, true), data["pagination"])
		})
		t.Run("sort by name/"+v, func(t *testing.T) {
			require.Equal(t, []string{"alpha", "bravo", "charlie", "delta", "echo"}, names(t, list(t, "?sort=name,asc")))
			require.Equal(t, []string{"alpha", "bravo", "charlie", "delta", "echo"}, names(t, list(t, "?sort=name")))
			require.Equal(t, []string{"echo", "delta", "charlie", "bravo", "alpha"}, names(t, list(t, "?sort=name,desc")))
			require.Equal(t, []string{"charlie", "delta"}, names(t, list(t, "?"+url.Values{"sort": {"name,asc"}, "page": {"2"}, "size": {"2"}}.Encode())))
		})
		t.Run("sort by createdAt ascending/"+v, func(t *testing.T) {
			require.Equal(t, []string{"charlie", "alpha", "echo", "bravo", "delta"}, names(t, list(t, "?sort=createdAt,asc")))
		})
		t.Run("category filter/"+v, func(t *testing.T) {
			require.Len(t, names(t, list(t, "?categoryCode=EDUCATION")), 5)
		})
		t.Run("other organization's rows never show/"+v, func(t *testing.T) {
			data := f.mustOK(t, http.MethodGet, "/public/"+v+"/programs", f.keys["otherManager"], "")
			require.Equal(t, []string{"Other program"}, names(t, data))
			require.NotContains(t, names(t, list(t, "?size=100")), "Other program")
		})
	}
	get := func(name, query string, status int, code string, fields ...string) apiCase {
		return apiCase{name: name, method: http.MethodGet, path: "/programs" + query, key: "viewer",
			wantStatus: status, wantCode: code, wantFields: fields}
	}
	f.run(t, []apiCase{
		get("page zero", "?page=0", 400, "COM006", "page"),
		get("page negative", "?page=-1", 400, "COM006", "page"),
		get("page not a number", "?page=two", 400, "COM002", "page"),
		get("size zero", "?size=0", 400, "COM006", "size"),
		get("size over 100", "?size=101", 400, "COM006", "size"),
		get("size 100", "?size=100", 200, ""),
		get("size not a number", "?size=abc", 400, "COM002", "size"),
		get("offset too deep", "?page=100000&size=100", 400, "COM006", "page"),
		get("sort unknown field", "?sort=foo", 400, "COM020"),
		get("sort unknown field with direction", "?sort=foo,asc", 400, "COM020"),
		get("sort bad direction", "?sort=name,up", 400, "COM002", "sort"),
		get("category unknown", "?categoryCode=SPORTS", 400, "COM006", "categoryCode"),
	})
}

func TestPrograms_Update(t *testing.T) {
	f := newFixture(t)
	full := `{"name":"Full","description":"Desc","url":"https://example.com","categoryCode":"EDUCATION",` +
		`"startsAt":"2025-03-01T00:00:00Z","endsAt":"2025-04-01T00:00:00Z","isVisibleAtOrganizationPage":true,` +
		`"imageId":"{image}","badgeIds":["{badge}"]}`
	newProgram := func(t *testing.T) (string, map[string]any) {
		data := f.mustOK(t, http.MethodPost, "/public/v3/programs", f.keys["manager"], f.expand(full))
		return jstr(t, data, "id"), data
	}
	patch := func(t *testing.T, v, id, body string) map[string]any {
		return f.mustOK(t, http.MethodPatch, "/public/"+v+"/programs/"+id, f.keys["manager"], f.expand(body))
	}
	// without drops the fields a PATCH may change.
	without := func(m map[string]any, drop ...string) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for _, k := range append(drop, "updatedAt") {
			delete(out, k)
		}
		return out
	}

	t.Run("empty body keeps everything", func(t *testing.T) {
		id, before := newProgram(t)
		after := patch(t, "v3", id, `{}`)
		require.Equal(t, without(before), without(after))
		require.Equal(t, "PUBLISHED", after["publishStatusCode"])
	})
	t.Run("omitted fields keep their values", func(t *testing.T) {
		id, before := newProgram(t)
		after := patch(t, "v3", id, `{"name":"Renamed"}`)
		require.Equal(t, "Renamed", after["name"])
		require.Equal(t, without(before, "name"), without(after, "name"))
		require.Equal(t, after, f.mustOK(t, http.MethodGet, "/public/v3/programs/"+id, f.keys["viewer"], ""))
	})
	t.Run("null clears description, url and startsAt", func(t *testing.T) {
		id, before := newProgram(t)
		after := patch(t, "v3", id, `{"description":null,"url":null,"startsAt":null}`)
		require.Nil(t, after["description"])
		require.Nil(t, after["url"])
		require.Nil(t, after["startsAt"])
		require.Equal(t, "2025-04-01T00:00:00Z", after["endsAt"])
		require.Equal(t, without(before, "description", "url", "startsAt"), without(after, "description", "url", "startsAt"))
		got := f.mustOK(t, http.MethodGet, "/public/v2/programs/"+id, f.keys["viewer"], "")
		require.Nil(t, got["description"])
		require.Nil(t, got["startsAt"])
	})
	t.Run("every field replaced", func(t *testing.T) {
		id, _ := newProgram(t)
		after := patch(t, "v2", id, `{"name":"N2","description":"D2","url":"http://example.org/2","categoryCode":"EDUCATION",`+
			`"startsAt":"2025-05-01T10:00:00","endsAt":"2025-05-02T10:00:00","isVisibleAtOrganizationPage":false,"imageId":"{image2}"}`)
		require.Equal(t, "N2", after["name"])
		require.Equal(t, "D2", after["description"])
		require.Equal(t, "http://example.org/2", after["url"])
		require.Equal(t, "2025-05-01T10:00:00", after["startsAt"])
		require.Equal(t, "2025-05-02T10:00:00", after["endsAt"])
		require.Equal(t, false, after["isVisibleAtOrganizationPage"])
		require.Equal(t, imageObject(f.vars["{image2}"]), after["image"])
		require.Equal(t, []any{f.vars["{badge}"]}, after["badgeIds"], "badgeIds omitted: links kept")
	})
	t.Run("badgeIds [] unlinks both ways", func(t *testing.T) {
		id, _ := newProgram(t)
		after := patch(t, "v3", id, `{"badgeIds":[]}`)
		require.Equal(t, []any{}, after["badgeIds"])
		badge := f.mustOK(t, http.MethodGet, "/public/v3/badges/"+f.vars["{badge}"], f.keys["viewer"], "")
		require.NotContains(t, jstrings(t, badge, "programIds"), id)
		require.Contains(t, jstrings(t, badge, "programIds"), f.vars["{program}"], "other programs' links stay")
		relinked := patch(t, "v3", id, `{"badgeIds":["{badge}"]}`)
		require.Equal(t, []any{f.vars["{badge}"]}, relinked["badgeIds"])
		badge = f.mustOK(t, http.MethodGet, "/public/v3/badges/"+f.vars["{badge}"], f.keys["viewer"], "")
		require.Contains(t, jstrings(t, badge, "programIds"), id)
	})
	t.Run("updatedAt moves, createdAt stays", func(t *testing.T) {
		id, before := newProgram(t)
		after := patch(t, "v3", id, `{"name":"Later"}`)
		require.Equal(t, before["createdAt"], after["createdAt"])
		require.GreaterOrEqual(t, jstr(t, after, "updatedAt"), jstr(t, before, "updatedAt"))
	})

	// Failing patches leave the fixture program as it was.
	before := f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{program}"], f.keys["viewer"], "")
	p := func(name, body string, status int, code string, fields ...string) apiCase {
		return apiCase{name: name, method: http.MethodPatch, path: "/programs/{program}", body: body, key: "manager",
			wantStatus: status, wantCode: code, wantFields: fields}
	}
	f.run(t, []apiCase{
		p("name null", `{"name":null}`, 400, "COM006", "name"),
		p("name empty", `{"name":""}`, 400, "COM006", "name"),
		p("category null", `{"categoryCode":null}`, 400, "COM006", "categoryCode"),
		p("image null", `{"imageId":null}`, 400, "COM006", "imageId"),
		p("image of another organization", `{"name":"X","imageId":"{otherImage}"}`, 400, "COM006", "imageId"),
		p("visible null", `{"isVisibleAtOrganizationPage":null}`, 400, "COM006", "isVisibleAtOrganizationPage"),
		p("badgeIds null", `{"badgeIds":null}`, 400, "COM006", "badgeIds"),
		p("badgeIds of another organization", `{"name":"X","badgeIds":["{otherBadge}"]}`, 404, "BDG001"),
		p("publishStatusCode", `{"publishStatusCode":"DRAFTED"}`, 400, "COM006", "publishStatusCode"),
		p("unknown field", `{"status":"x"}`, 400, "COM006", "status"),
		{name: "endsAt before stored startsAt", version: "v3", method: http.MethodPatch, path: "/programs/{program}",
			key: "manager", body: `{"name":"X","startsAt":"2025-03-01T00:00:00Z","endsAt":"2025-02-01T00:00:00Z"}`,
			wantStatus: 400, wantCode: "COM006", wantFields: []string{"endsAt"}},
		{name: "missing program", method: http.MethodPatch, path: "/programs/{missing}", body: `{"name":"X"}`,
			key: "manager", wantStatus: 404, wantCode: "PRG001"},
	})
	t.Run("failed patches changed nothing", func(t *testing.T) {
		after := f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{program}"], f.keys["viewer"], "")
		require.Equal(t, before, after)
	})
	t.Run("endsAt before a stored startsAt", func(t *testing.T) {
		id, _ := newProgram(t) // starts 2025-03-01
		r := f.do(t, http.MethodPatch, "/public/v3/programs/"+id, f.keys["manager"], `{"endsAt":"2025-02-28T00:00:00Z"}`)
		requireError(t, r, "/public/v3/programs/"+id, 400, "COM006", "endsAt")
	})
}

func TestPrograms_Delete(t *testing.T) {
	f := newFixture(t)
	for _, v := range testVersions {
		t.Run(v, func(t *testing.T) {
			id := f.mustProgram(t, "manager", "Doomed "+v, f.vars["{image}"])
			base := "/public/" + v + "/programs/"
			f.mustOK(t, http.MethodPatch, "/public/"+v+"/badges/"+f.vars["{badge}"], f.keys["manager"],
				`{"programIds":["`+f.vars["{program}"]+`","`+id+`"]}`)

			require.Equal(t, map[string]any{"id": id, "deleted": true}, f.mustOK(t, http.MethodDelete, base+id, f.keys["manager"], ""))
			for _, method := range []string{http.MethodGet, http.MethodDelete} {
				requireError(t, f.do(t, method, base+id, f.keys["manager"], ""), base+id, 404, "PRG001")
			}
			requireError(t, f.do(t, http.MethodPatch, base+id, f.keys["manager"], `{"name":"x"}`), base+id, 404, "PRG001")

			badge := f.mustOK(t, http.MethodGet, "/public/"+v+"/badges/"+f.vars["{badge}"], f.keys["viewer"], "")
			require.Equal(t, []string{f.vars["{program}"]}, jstrings(t, badge, "programIds"))
			list := f.mustOK(t, http.MethodGet, "/public/"+v+"/programs?size=100", f.keys["viewer"], "")
			for _, item := range list["items"].([]any) {
				require.NotEqual(t, id, item.(map[string]any)["id"])
			}
			// A deleted program cannot be linked again.
			r := f.do(t, http.MethodPatch, "/public/"+v+"/badges/"+f.vars["{badge}"], f.keys["manager"], `{"programIds":["`+id+`"]}`)
			requireError(t, r, "/public/"+v+"/badges/"+f.vars["{badge}"], 404, "PRG001")
		})
	}
}
