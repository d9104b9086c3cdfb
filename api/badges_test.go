package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// fullBadge is a create body using every field: two criteria, a skill of each kind, a relative policy, a
// signature image and one program.
const fullBadge = `{"name":"Gopher","description":"Knows Go","categoryCode":"CERTIFICATION",` +
	`"criteria":[{"category":"COMPLETION","value":"Finish all modules"},{"category":"SCORE_GRADE","value":"80 or more"}],` +
	`"skills":[{"sourceType":"CUSTOM","skillName":"Go"},{"sourceType":"SERVICE_SKILL","serviceSkillId":"SK-123","language":"ko"}],` +
	`"expirationPolicy":{"relativeExpirationMonths":24},` +
	`"imageId":"{image}","signatureImageId":"{image2}","programIds":["{program}"]}`

func customSkill(name string) map[string]any {
	return map[string]any{"sourceType": "CUSTOM", "skillName": name, "serviceSkillId": nil, "language": nil}
}

func serviceSkill(id, lang string) map[string]any {
	return map[string]any{"sourceType": "SERVICE_SKILL", "skillName": nil, "serviceSkillId": id, "language": lang}
}

func TestBadges_Create(t *testing.T) {
	f := newFixture(t)
	for _, v := range testVersions {
		t.Run("all fields/"+v, func(t *testing.T) {
			data := f.mustOK(t, http.MethodPost, "/public/"+v+"/badges", f.keys["manager"], f.expand(fullBadge))
			id := jstr(t, data, "id")
			_, err := uuid.Parse(id)
			require.NoError(t, err)
			require.Regexp(t, timeFormat(v), data["createdAt"])
			require.Regexp(t, timeFormat(v), data["updatedAt"])
			want := map[string]any{
				"id": id, "name": "Gopher", "description": "Knows Go", "categoryCode": "CERTIFICATION",
				"criteria": []any{
					map[string]any{"category": "COMPLETION", "value": "Finish all modules"},
					map[string]any{"category": "SCORE_GRADE", "value": "80 or more"},
				},
				"skills":            []any{customSkill("Go"), serviceSkill("SK-123", "ko")},
				"expirationPolicy":  map[string]any{"type": "RELATIVE", "relativeExpirationMonths": float64(24), "fixedExpiredAt": nil},
				"publishStatusCode": "PUBLISHED",
				"image":             imageObject(f.vars["{image}"]),
				"signatureImage":    imageObject(f.vars["{image2}"]),
				"programIds":        []any{f.vars["{program}"]},
				"createdAt":         data["createdAt"], "updatedAt": data["updatedAt"],
			}
			if v == "v3" {
				want["expiryReminders"] = []any{} // the v3 extension; no policy by default
			}
			require.Equal(t, want, data)
			require.Equal(t, data, f.mustOK(t, http.MethodGet, "/public/"+v+"/badges/"+id, f.keys["viewer"], ""))
			program := f.mustOK(t, http.MethodGet, "/public/"+v+"/programs/"+f.vars["{program}"], f.keys["viewer"], "")
			require.Contains(t, jstrings(t, program, "badgeIds"), id, "the link shows from the program side too")
		})
		t.Run("required fields only/"+v, func(t *testing.T) {
			data := f.mustOK(t, http.MethodPost, "/public/"+v+"/badges", f.keys["owner"],
				`{"name":"Min","description":"d","categoryCode":"OTHER","criteria":[{"category":"OTHER","value":"v"}],`+
					`"skills":[{"sourceType":"SERVICE_SKILL","serviceSkillId":"S1","language":"en"}],"imageId":"`+f.vars["{image}"]+`"}`)
			require.Contains(t, data, "expirationPolicy")
			require.Nil(t, data["expirationPolicy"])
			require.Contains(t, data, "signatureImage")
			require.Nil(t, data["signatureImage"])
			require.Equal(t, []any{}, data["programIds"])
			require.Equal(t, []any{serviceSkill("S1", "en")}, data["skills"])
		})
	}

	t.Run("FIXED policy is stored and written back per version", func(t *testing.T) {
		body := f.expand(`{"name":"Fixed","description":"d","categoryCode":"AWARD","criteria":[{"category":"AWARD_SELECTION","value":"v"}],` +
			`"skills":[{"sourceType":"CUSTOM","skillName":"s"}],"imageId":"{image}",` +
			`"expirationPolicy":{"type":"FIXED","fixedExpiredAt":"2026-12-31T23:59:59+09:00"}}`)
		data := f.mustOK(t, http.MethodPost, "/public/v3/badges", f.keys["manager"], body)
		id := jstr(t, data, "id")
		require.Equal(t, map[string]any{"type": "FIXED", "relativeExpirationMonths": nil, "fixedExpiredAt": "2026-12-31T14:59:59Z"},
			data["expirationPolicy"])
		v2 := f.mustOK(t, http.MethodGet, "/public/v2/badges/"+id, f.keys["viewer"], "")
		require.Equal(t, "2026-12-31T23:59:59", jstr(t, v2, "expirationPolicy.fixedExpiredAt"))

		var kind string
		var months *int32
		var fixedAt time.Time
		require.NoError(t, f.d.Pool.QueryRow(context.Background(),
			"SELECT expiration_kind, expiration_months, expiration_fixed_at FROM badges WHERE id = $1", id).Scan(&kind, &months, &fixedAt))
		require.Equal(t, "FIXED", kind)
		require.Nil(t, months)
		require.True(t, fixedAt.Equal(time.Date(2026, 12, 31, 14, 59, 59, 0, time.UTC)), "stored %s", fixedAt)

		// v2 reads a local fixedExpiredAt in the service time zone.
		data = f.mustOK(t, http.MethodPost, "/public/v2/badges", f.keys["manager"],
			f.expand(`{"name":"Fixed2","description":"d","categoryCode":"AWARD","criteria":[{"category":"OTHER","value":"v"}],`+
				`"skills":[{"sourceType":"CUSTOM","skillName":"s"}],"imageId":"{image}",`+
				`"expirationPolicy":{"type":"FIXED","fixedExpiredAt":"2026-12-31T23:59:59"}}`))
		v3 := f.mustOK(t, http.MethodGet, "/public/v3/badges/"+jstr(t, data, "id"), f.keys["viewer"], "")
		require.Equal(t, "2026-12-31T14:59:59Z", jstr(t, v3, "expirationPolicy.fixedExpiredAt"))
	})
	t.Run("explicit RELATIVE type", func(t *testing.T) {
		body := f.expand(`{"name":"Rel","description":"d","categoryCode":"AWARD","criteria":[{"category":"OTHER","value":"v"}],` +
			`"skills":[{"sourceType":"CUSTOM","skillName":"s"}],"imageId":"{image}",` +
			`"expirationPolicy":{"type":"RELATIVE","relativeExpirationMonths":6,"fixedExpiredAt":null}}`)
		data := f.mustOK(t, http.MethodPost, "/public/v3/badges", f.keys["manager"], body)
		require.Equal(t, map[string]any{"type": "RELATIVE", "relativeExpirationMonths": float64(6), "fixedExpiredAt": nil},
			data["expirationPolicy"])
	})

	// base is a valid body to which a case appends one field (a repeated key replaces the earlier value).
	const base = `"name":"B","description":"d","categoryCode":"COMPLETION","criteria":[{"category":"COMPLETION","value":"v"}],` +
		`"skills":[{"sourceType":"CUSTOM","skillName":"s"}],"imageId":"{image}"`
	post := func(name, extra string, status int, code string, fields ...string) apiCase {
		body := overlay(t, `{`+base+`}`, `{`+extra+`}`) // extra replaces base's fields (a repeated key is refused)
		return apiCase{name: name, method: http.MethodPost, path: "/badges", body: body, key: "manager",
			wantStatus: status, wantCode: code, wantFields: fields}
	}
	badges := countRows(t, f.d, "badges", f.org)
	cases := []apiCase{
		{name: "empty object", method: http.MethodPost, path: "/badges", body: `{}`, key: "manager", wantStatus: 400,
			wantCode: "COM006", wantFields: []string{"name", "description", "criteria", "categoryCode", "imageId", "skills"}},
		post("description empty", `"description":""`, 400, "COM006", "description"),
		post("description null", `"description":null`, 400, "COM006", "description"),
		post("category of programs", `"categoryCode":"EDUCATION"`, 400, "COM006", "categoryCode"),
		post("criteria empty", `"criteria":[]`, 400, "COM006", "criteria"),
		post("criteria null", `"criteria":null`, 400, "COM006", "criteria"),
		post("criteria not objects", `"criteria":[5]`, 400, "COM002", "criteria[0]"),
		post("criterion category unknown", `"criteria":[{"category":"COMPLETION","value":"a"},{"category":"WINNING","value":"b"}]`,
			400, "COM006", "criteria[1].category"),
		post("criterion value missing", `"criteria":[{"category":"COMPLETION"}]`, 400, "COM006", "criteria[0].value"),
		post("criterion category missing", `"criteria":[{"value":"x"}]`, 400, "COM006", "criteria[0].category"),
		post("criterion extra field", `"criteria":[{"category":"COMPLETION","value":"a","weight":1}]`, 400, "COM006", "criteria[0].weight"),
		post("skills empty", `"skills":[]`, 400, "COM006", "skills"),
		post("skills null", `"skills":null`, 400, "COM006", "skills"),
		post("skill source missing", `"skills":[{"skillName":"x"}]`, 400, "COM006", "skills[0].sourceType"),
		post("skill source unknown", `"skills":[{"sourceType":"OTHER","skillName":"x"}]`, 400, "COM006", "skills[0].sourceType"),
		post("custom skill without name", `"skills":[{"sourceType":"CUSTOM"}]`, 400, "COM006", "skills[0].skillName"),
		post("custom skill with serviceSkillId", `"skills":[{"sourceType":"CUSTOM","skillName":"x","serviceSkillId":"S1"}]`,
			400, "COM006", "skills[0].serviceSkillId"),
		post("custom skill with language", `"skills":[{"sourceType":"CUSTOM","skillName":"x","language":"en"}]`,
			400, "COM006", "skills[0].language"),
		post("service skill with skillName", `"skills":[{"sourceType":"SERVICE_SKILL","serviceSkillId":"S1","language":"en","skillName":"x"}]`,
			400, "COM006", "skills[0].skillName"),
		post("service skill without language", `"skills":[{"sourceType":"CUSTOM","skillName":"x"},{"sourceType":"SERVICE_SKILL","serviceSkillId":"S1"}]`,
			400, "COM006", "skills[1].language"),
		post("service skill without id", `"skills":[{"sourceType":"SERVICE_SKILL","language":"ko"}]`, 400, "COM006", "skills[0].serviceSkillId"),
		post("service skill language unknown", `"skills":[{"sourceType":"SERVICE_SKILL","serviceSkillId":"S1","language":"fr"}]`,
			400, "COM006", "skills[0].language"),
		post("policy months zero", `"expirationPolicy":{"relativeExpirationMonths":0}`, 400, "COM006", "expirationPolicy.relativeExpirationMonths"),
		post("policy months missing", `"expirationPolicy":{}`, 400, "COM006", "expirationPolicy.relativeExpirationMonths"),
		post("policy months fractional", `"expirationPolicy":{"relativeExpirationMonths":1.5}`, 400, "COM002", "expirationPolicy.relativeExpirationMonths"),
		post("policy not an object", `"expirationPolicy":12`, 400, "COM002", "expirationPolicy"),
		post("policy type unknown", `"expirationPolicy":{"type":"SOMETIMES","relativeExpirationMonths":1}`, 400, "COM006", "expirationPolicy.type"),
		post("FIXED without date", `"expirationPolicy":{"type":"FIXED"}`, 400, "COM006", "expirationPolicy.fixedExpiredAt"),
		post("FIXED with months", `"expirationPolicy":{"type":"FIXED","fixedExpiredAt":"2030-01-01T00:00:00Z","relativeExpirationMonths":3}`,
			400, "COM006", "expirationPolicy.relativeExpirationMonths"),
		post("relative with a date", `"expirationPolicy":{"relativeExpirationMonths":3,"fixedExpiredAt":"2030-01-01T00:00:00Z"}`,
			400, "COM006", "expirationPolicy.fixedExpiredAt"),
		{name: "FIXED date without offset", version: "v3", method: http.MethodPost, path: "/badges", key: "manager",
			body:       `{` + base + `,"expirationPolicy":{"type":"FIXED","fixedExpiredAt":"2030-01-01T00:00:00"}}`,
			wantStatus: 400, wantCode: "COM002", wantFields: []string{"expirationPolicy.fixedExpiredAt"}},
		post("publishStatusCode sent", `"publishStatusCode":"PUBLISHED"`, 400, "COM006", "publishStatusCode"),
		post("programIds null", `"programIds":null`, 400, "COM006", "programIds"),
		post("programIds unknown", `"programIds":["{missing}"]`, 404, "PRG001"),
		post("programIds of another organization", `"programIds":["{program}","{otherProgram}"]`, 404, "PRG001"),
		post("image of another organization", `"imageId":"{otherImage}"`, 400, "COM006", "imageId"),
		post("signature image of another organization", `"signatureImageId":"{otherImage}"`, 400, "COM006", "signatureImageId"),
		post("signature image not a uuid", `"signatureImageId":"sig"`, 400, "COM002", "signatureImageId"),
	}
	f.run(t, cases)
	require.Equal(t, badges, countRows(t, f.d, "badges", f.org), "no failed create left a badge")

	t.Run("null signature image on create", func(t *testing.T) {
		data := f.mustOK(t, http.MethodPost, "/public/v3/badges", f.keys["manager"], f.expand(`{`+base+`,"signatureImageId":null}`))
		require.Nil(t, data["signatureImage"])
	})
	t.Run("null fields of the other skill kind count as not sent", func(t *testing.T) {
		data := f.mustOK(t, http.MethodPost, "/public/v3/badges", f.keys["manager"], f.expand(overlay(t, `{`+base+`}`,
			`{"skills":[{"sourceType":"CUSTOM","skillName":"x","serviceSkillId":null,"language":null}]}`)))
		require.Equal(t, []any{customSkill("x")}, data["skills"])
	})
}

func TestBadges_Update(t *testing.T) {
	f := newFixture(t)
	newBadge := func(t *testing.T) (string, map[string]any) {
		data := f.mustOK(t, http.MethodPost, "/public/v3/badges", f.keys["manager"], f.expand(fullBadge))
		return jstr(t, data, "id"), data
	}
	patch := func(t *testing.T, id, body string) map[string]any {
		return f.mustOK(t, http.MethodPatch, "/public/v3/badges/"+id, f.keys["manager"], f.expand(body))
	}
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

	t.Run("rule 1: omitted fields keep their values", func(t *testing.T) {
		id, before := newBadge(t)
		require.Equal(t, without(before), without(patch(t, id, `{}`)))
		after := patch(t, id, `{"name":"Renamed"}`)
		require.Equal(t, "Renamed", after["name"])
		require.Equal(t, without(before, "name"), without(after, "name"))
		require.Equal(t, after, f.mustOK(t, http.MethodGet, "/public/v3/badges/"+id, f.keys["viewer"], ""))
	})
	t.Run("rule 2: null clears signatureImageId and expirationPolicy", func(t *testing.T) {
		id, before := newBadge(t)
		after := patch(t, id, `{"signatureImageId":null,"expirationPolicy":null}`)
		require.Contains(t, after, "signatureImage")
		require.Nil(t, after["signatureImage"])
		require.Contains(t, after, "expirationPolicy")
		require.Nil(t, after["expirationPolicy"])
		require.Equal(t, without(before, "signatureImage", "expirationPolicy"), without(after, "signatureImage", "expirationPolicy"))
		got := f.mustOK(t, http.MethodGet, "/public/v2/badges/"+id, f.keys["viewer"], "")
		require.Nil(t, got["signatureImage"])
		require.Nil(t, got["expirationPolicy"])
		// And they can be set again.
		again := patch(t, id, `{"signatureImageId":"{image}","expirationPolicy":{"type":"FIXED","fixedExpiredAt":"2030-01-01T00:00:00Z"}}`)
		require.Equal(t, imageObject(f.vars["{image}"]), again["signatureImage"])
		require.Equal(t, "FIXED", jstr(t, again, "expirationPolicy.type"))
		require.Nil(t, jget(t, again, "expirationPolicy.relativeExpirationMonths"))
	})
	t.Run("every field replaced", func(t *testing.T) {
		id, _ := newBadge(t)
		p2 := f.mustProgram(t, "manager", "Second", f.vars["{image}"])
		after := patch(t, id, `{"name":"N","description":"D","categoryCode":"SEMINAR","criteria":[{"category":"OTHER","value":"o"}],`+
			`"skills":[{"sourceType":"SERVICE_SKILL","serviceSkillId":"X9","language":"en"}],"expirationPolicy":{"relativeExpirationMonths":1},`+
			`"imageId":"{image2}","signatureImageId":"{image}","programIds":["`+p2+`"]}`)
		require.Equal(t, "N", after["name"])
		require.Equal(t, "D", after["description"])
		require.Equal(t, "SEMINAR", after["categoryCode"])
		require.Equal(t, []any{map[string]any{"category": "OTHER", "value": "o"}}, after["criteria"])
		require.Equal(t, []any{serviceSkill("X9", "en")}, after["skills"])
		require.Equal(t, float64(1), jget(t, after, "expirationPolicy.relativeExpirationMonths"))
		require.Equal(t, imageObject(f.vars["{image2}"]), after["image"])
		require.Equal(t, imageObject(f.vars["{image}"]), after["signatureImage"])
		require.Equal(t, []any{p2}, after["programIds"])
		require.Equal(t, "PUBLISHED", after["publishStatusCode"])
		program := f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{program}"], f.keys["viewer"], "")
		require.NotContains(t, jstrings(t, program, "badgeIds"), id)
		program = f.mustOK(t, http.MethodGet, "/public/v3/programs/"+p2, f.keys["viewer"], "")
		require.Equal(t, []string{id}, jstrings(t, program, "badgeIds"))
	})
	t.Run("rule 5: programIds [] removes every link, both ways", func(t *testing.T) {
		id, _ := newBadge(t)
		program := f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{program}"], f.keys["viewer"], "")
		require.Contains(t, jstrings(t, program, "badgeIds"), id)
		after := patch(t, id, `{"programIds":[]}`)
		require.Equal(t, []any{}, after["programIds"])
		require.Equal(t, []any{}, f.mustOK(t, http.MethodGet, "/public/v2/badges/"+id, f.keys["viewer"], "")["programIds"])
		program = f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{program}"], f.keys["viewer"], "")
		require.NotContains(t, jstrings(t, program, "badgeIds"), id)
		require.Contains(t, jstrings(t, program, "badgeIds"), f.vars["{badge}"], "other badges' links stay")
		list := f.mustOK(t, http.MethodGet, "/public/v3/badges?programId="+f.vars["{program}"]+"&size=100", f.keys["viewer"], "")
		for _, item := range list["items"].([]any) {
			require.NotEqual(t, id, item.(map[string]any)["id"])
		}
	})
	t.Run("rule 7: skills replaced by a valid mix", func(t *testing.T) {
		id, _ := newBadge(t)
		after := patch(t, id, `{"skills":[{"sourceType":"SERVICE_SKILL","serviceSkillId":"A","language":"en"},{"sourceType":"CUSTOM","skillName":"B"}]}`)
		require.Equal(t, []any{serviceSkill("A", "en"), customSkill("B")}, after["skills"])
	})
	t.Run("rule 8: responses are always PUBLISHED", func(t *testing.T) {
		id, _ := newBadge(t)
		require.Equal(t, "PUBLISHED", patch(t, id, `{"description":"x"}`)["publishStatusCode"])
	})

	// Failing patches on the fixture badge: none may change it.
	before := f.mustOK(t, http.MethodGet, "/public/v3/badges/"+f.vars["{badge}"], f.keys["viewer"], "")
	p := func(name, body string, status int, code string, fields ...string) apiCase {
		return apiCase{name: name, method: http.MethodPatch, path: "/badges/{badge}", body: body, key: "manager",
			wantStatus: status, wantCode: code, wantFields: fields}
	}
	var cases []apiCase
	// Rule 3: required fields reject null and empty values.
	for _, field := range []string{"name", "description", "categoryCode", "imageId"} {
		cases = append(cases,
			p("rule 3: "+field+" null", `{"`+field+`":null}`, 400, "COM006", field),
			p("rule 3: "+field+" empty", `{"`+field+`":""}`, 400, "COM006", field),
			p("rule 3: "+field+" blank", `{"`+field+`":"  "}`, 400, "COM006", field))
	}
	// Rule 4: arrays never accept null.
	for _, field := range []string{"criteria", "skills", "programIds"} {
		cases = append(cases, p("rule 4: "+field+" null", `{"`+field+`":null}`, 400, "COM006", field))
	}
	cases = append(cases,
		p("rule 6: criteria empty", `{"criteria":[]}`, 400, "COM006", "criteria"),
		p("rule 6: skills empty", `{"skills":[]}`, 400, "COM006", "skills"),
		p("rule 6: criterion with an empty value", `{"criteria":[{"category":"OTHER","value":""}]}`, 400, "COM006", "criteria[0].value"),
		p("rule 7: CUSTOM with serviceSkillId", `{"skills":[{"sourceType":"CUSTOM","skillName":"a","serviceSkillId":"S"}]}`,
			400, "COM006", "skills[0].serviceSkillId"),
		p("rule 7: CUSTOM with language", `{"skills":[{"sourceType":"CUSTOM","skillName":"a"},{"sourceType":"CUSTOM","skillName":"b","language":"ko"}]}`,
			400, "COM006", "skills[1].language"),
		p("rule 7: SERVICE_SKILL with skillName", `{"skills":[{"sourceType":"SERVICE_SKILL","serviceSkillId":"S","language":"ko","skillName":"a"}]}`,
			400, "COM006", "skills[0].skillName"),
		p("rule 7: SERVICE_SKILL without serviceSkillId", `{"skills":[{"sourceType":"SERVICE_SKILL","language":"ko"}]}`,
			400, "COM006", "skills[0].serviceSkillId"),
		p("rule 7: SERVICE_SKILL without language", `{"skills":[{"sourceType":"CUSTOM","skillName":"a"},{"sourceType":"SERVICE_SKILL","serviceSkillId":"S"}]}`,
			400, "COM006", "skills[1].language"),
		p("rule 7: SERVICE_SKILL language other than en or ko", `{"skills":[{"sourceType":"SERVICE_SKILL","serviceSkillId":"S","language":"ja"}]}`,
			400, "COM006", "skills[0].language"),
		p("rule 7: criterion category wrong", `{"criteria":[{"category":"COMPLETION","value":"a"},{"category":"X","value":"b"}]}`,
			400, "COM006", "criteria[1].category"),
		p("rule 8: publishStatusCode PUBLISHED", `{"publishStatusCode":"PUBLISHED"}`, 400, "COM006", "publishStatusCode"),
		p("rule 8: publishStatusCode DRAFTED", `{"name":"x","publishStatusCode":"DRAFTED"}`, 400, "COM006", "publishStatusCode"),
		p("unknown field", `{"status":"x"}`, 400, "COM006", "status"),
		p("policy months negative", `{"expirationPolicy":{"relativeExpirationMonths":-1}}`, 400, "COM006", "expirationPolicy.relativeExpirationMonths"),
		p("signature image of another organization", `{"signatureImageId":"{otherImage}"}`, 400, "COM006", "signatureImageId"),
		p("image of another organization", `{"imageId":"{otherImage}"}`, 400, "COM006", "imageId"),
		p("image unknown", `{"imageId":"{missing}"}`, 400, "COM006", "imageId"),
		// Transactions: the name change is valid, the link is not; nothing is written.
		p("programIds of another organization", `{"name":"Changed","programIds":["{otherProgram}"]}`, 404, "PRG001"),
		p("programIds partly unknown", `{"name":"Changed","programIds":["{program}","{missing}"]}`, 404, "PRG001"),
		p("programIds duplicate", `{"programIds":["{program}","{program}"]}`, 400, "COM006", "programIds[1]"),
		p("missing badge", `{"name":"x"}`, 404, "BDG001"),
	)
	cases[len(cases)-1].path = "/badges/{missing}"
	f.run(t, cases)
	t.Run("failed patches changed nothing", func(t *testing.T) {
		require.Equal(t, before, f.mustOK(t, http.MethodGet, "/public/v3/badges/"+f.vars["{badge}"], f.keys["viewer"], ""))
		program := f.mustOK(t, http.MethodGet, "/public/v3/programs/"+f.vars["{program}"], f.keys["viewer"], "")
		require.Contains(t, jstrings(t, program, "badgeIds"), f.vars["{badge}"])
	})
}

func TestBadges_DeleteAndList(t *testing.T) {
	f := newFixture(t)
	for _, v := range testVersions {
		t.Run("delete/"+v, func(t *testing.T) {
			id := f.mustBadge(t, "manager", "Doomed", f.vars["{image}"], f.vars["{program}"])
			path := "/public/" + v + "/badges/" + id
			require.Equal(t, map[string]any{"id": id, "deleted": true}, f.mustOK(t, http.MethodDelete, path, f.keys["owner"], ""))
			requireError(t, f.do(t, http.MethodGet, path, f.keys["viewer"], ""), path, 404, "BDG001")
			requireError(t, f.do(t, http.MethodDelete, path, f.keys["manager"], ""), path, 404, "BDG001")
			requireError(t, f.do(t, http.MethodPatch, path, f.keys["manager"], `{"name":"x"}`), path, 404, "BDG001")
			program := f.mustOK(t, http.MethodGet, "/public/"+v+"/programs/"+f.vars["{program}"], f.keys["viewer"], "")
			require.Equal(t, []string{f.vars["{badge}"]}, jstrings(t, program, "badgeIds"))
			// A deleted badge cannot be linked again.
			pp := "/public/" + v + "/programs/" + f.vars["{program}"]
			requireError(t, f.do(t, http.MethodPatch, pp, f.keys["manager"], `{"badgeIds":["`+id+`"]}`), pp, 404, "BDG001")
		})
	}

	second := f.mustBadge(t, "manager", "Second", f.vars["{image}"])
	for _, v := range testVersions {
		t.Run("list/"+v, func(t *testing.T) {
			data := f.mustOK(t, http.MethodGet, "/public/"+v+"/badges", f.keys["viewer"], "")
			items := data["items"].([]any)
			require.Len(t, items, 2, "deleted badges and other organizations' badges never show")
			require.Equal(t, second, jstr(t, data, "items.0.id"), "newest first")
			require.Equal(t, f.vars["{badge}"], jstr(t, data, "items.1.id"))
			require.Equal(t, float64(2), jget(t, data, "pagination.totalElement"))
			require.Regexp(t, timeFormat(v), jstr(t, data, "items.0.createdAt"))

			byProgram := f.mustOK(t, http.MethodGet, "/public/"+v+"/badges?programId="+f.vars["{program}"], f.keys["viewer"], "")
			require.Len(t, byProgram["items"].([]any), 1)
			require.Equal(t, f.vars["{badge}"], jstr(t, byProgram, "items.0.id"))
			other := f.mustOK(t, http.MethodGet, "/public/"+v+"/badges?programId="+f.vars["{otherProgram}"], f.keys["viewer"], "")
			require.Equal(t, []any{}, other["items"], "another organization's program filters to nothing")
			byName := f.mustOK(t, http.MethodGet, "/public/"+v+"/badges?sort=name,desc&size=1&page=2", f.keys["viewer"], "")
			require.Equal(t, "Fixture badge", jstr(t, byName, "items.0.name"))
		})
	}
	get := func(name, query string, status int, code string, fields ...string) apiCase {
		return apiCase{name: name, method: http.MethodGet, path: "/badges" + query, key: "viewer",
			wantStatus: status, wantCode: code, wantFields: fields}
	}
	f.run(t, []apiCase{
		get("sort unknown", "?sort=issuedAt,desc", 400, "COM020"),
		get("size over 100", "?size=101", 400, "COM006", "size"),
		get("page zero", "?page=0", 400, "COM006", "page"),
		get("size not a number", "?size=abc", 400, "COM002", "size"),
		get("programId not a uuid", "?programId=abc", 400, "COM002", "programId"),
		get("category unknown", "?categoryCode=EDUCATION", 400, "COM006", "categoryCode"),
		get("category filter", "?categoryCode=COMPLETION", 200, ""),
	})
}

// TestBadges_MonthsMustBeANumber: relativeExpirationMonths is an integer; the JSON string "12" is a type error
// (COM002), as `"name": 5` is. It is accepted today: object.integer (api/decode.go, func integer) unmarshals into
// json.Number, and encoding/json fills a json.Number from a quoted string that holds a valid number.
func TestBadges_MonthsMustBeANumber(t *testing.T) {
	f := newFixture(t)
	before := countRows(t, f.d, "badges", f.org)
	body := strings.Replace(badgeBody("Months", f.vars["{image}"]), `"imageId"`, `"expirationPolicy":{"relativeExpirationMonths":"12"},"imageId"`, 1)
	for _, v := range testVersions {
		path := "/public/" + v + "/badges"
		r := f.do(t, http.MethodPost, path, f.keys["manager"], body)
		require.Equal(t, http.StatusBadRequest, r.Status,
			"BUG (api/decode.go integer): a quoted number is accepted as relativeExpirationMonths: %s", r.Raw)
		requireError(t, r, path, 400, "COM002", "expirationPolicy.relativeExpirationMonths")
		path = "/public/" + v + "/badges/" + f.vars["{badge}"]
		r = f.do(t, http.MethodPatch, path, f.keys["manager"], `{"expirationPolicy":{"relativeExpirationMonths":"6"}}`)
		requireError(t, r, path, 400, "COM002", "expirationPolicy.relativeExpirationMonths")
	}
	require.Equal(t, before, countRows(t, f.d, "badges", f.org))
}
