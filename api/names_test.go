package api_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileNames are names the API refuses (COM006 naming the field), with the words of the reason: line breaks,
// other C0 and C1 control characters, and bidirectional embedding, override and isolate characters.
var hostileNames = map[string]string{
	"Kim\r\nBcc: x@evil.test": "must be one line",
	"Kim\nLee":                "must be one line",
	"Kim\u2028Lee":            "must be one line",
	"Kim\tLee":                "control characters (U+0009",
	"Kim\u001b[31m":           "control characters (U+001B",
	"Kim\u007f":               "control characters (U+007F",
	"Kim\u0085Lee":            "control characters (U+0085",
	"Kim\u009b2J":             "control characters (U+009B",
	"Kim \u202etneduts":       "bidirectional override, embedding or isolate characters (U+202E",
	"\u202aKim":               "U+202A",
	"Kim\u202c":               "U+202C",
	"Kim \u2066x\u2069":       "U+2066",
	"Kim \u2069":              "U+2069",
}

// TestNames_ControlAndBidiCharacters: every name field (program, badge, skill, recipient, reissue recipient,
// sourcedId) refuses control characters and bidirectional overrides with COM006 naming the field; descriptions,
// criteria and cancel reasons accept line breaks, tabs and bidirectional controls but no other control character.
// Names with quotes, commas, angle brackets and Hangul are accepted as sent.
func TestNames_ControlAndBidiCharacters(t *testing.T) {
	f := newIssFixture(t)
	img, prog, badge := f.vars["{image}"], f.vars["{program}"], f.vars["{badge}"]
	type write struct {
		name, method, path, body, field string
	}
	var writes []write
	n := 0
	for bad, why := range hostileNames {
		n++
		label := strconv.Quote(bad)
		writes = append(writes,
			write{"program name", http.MethodPost, "/programs", `{"name":` + quote(bad) + `,"categoryCode":"EDUCATION","imageId":"` + img + `"}`, "name"},
			write{"program rename", http.MethodPatch, "/programs/" + prog, `{"name":` + quote(bad) + `}`, "name"},
			write{"badge name", http.MethodPost, "/badges", badgeBody(bad, img, prog), "name"},
			write{"badge rename", http.MethodPatch, "/badges/" + badge, `{"name":` + quote(bad) + `}`, "name"},
			write{"skill name", http.MethodPatch, "/badges/" + badge, `{"skills":[{"sourceType":"CUSTOM","skillName":` + quote(bad) + `}]}`, "skills[0].skillName"},
		)
		for _, w := range writes[len(writes)-5:] {
			for _, v := range testVersions {
				t.Run(w.name+"/"+v+"/"+label, func(t *testing.T) {
					path := "/public/" + v + w.path
					r := f.do(t, w.method, path, f.keys["manager"], w.body)
					requireError(t, r, path, http.StatusBadRequest, "COM006", w.field)
					require.Contains(t, r.Body["error"].(map[string]any)["message"], why, "%s", r.Raw)
				})
			}
		}
		for _, v := range testVersions {
			t.Run("recipient name/"+v+"/"+label, func(t *testing.T) {
				body := issuanceBody(prog, rcpt("Good", "g@example.com"), rcpt(bad, "kim@example.com"))
				r := f.postIssuance(t, v, badge, "manager", fmt.Sprintf("names-%s-%d", v, n), body)
				requireError(t, r, f.issuancePath(v, badge), http.StatusBadRequest, "COM006", "recipients[1].name")
				require.Contains(t, r.Body["error"].(map[string]any)["message"], why, "%s", r.Raw)
				// The dry run finds it too, as a problem of that field with its code, so an integrator's check finds
				// it before the real request.
				r = f.postIssuanceTo(t, f.issuancePath(v, badge)+"?dryRun=true", f.keys["manager"], fmt.Sprintf("names-dry-%s-%d", v, n), body)
				require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
				data := r.Body["data"].(map[string]any)
				require.Equal(t, false, data["wouldSucceed"], "%s", r.Raw)
				problems := data["problems"].([]any)
				require.Len(t, problems, 1, "%s", r.Raw)
				p := problems[0].(map[string]any)
				require.Equal(t, "COM006", p["code"])
				require.Equal(t, "recipients[1].name", p["field"])
				require.Contains(t, p["message"], why)
			})
		}
		t.Run("sourcedId/"+label, func(t *testing.T) {
			body := issuanceBody(prog, `{"name":"Kim","email":"k@example.com","receiveType":"EMAIL","sourcedId":`+quote(bad)+`}`)
			r := f.postIssuance(t, "v3", badge, "manager", fmt.Sprintf("sourced-%d", n), body)
			requireError(t, r, f.issuancePath("v3", badge), http.StatusBadRequest, "COM006", "recipients[0].sourcedId")
		})
	}
	require.Zero(t, countRows(t, f.d, "issuances", f.org), "no refused issuance was stored")

	t.Run("reissue recipientName", func(t *testing.T) {
		orig := f.mustIssuedAssertion(t, "v3", "reissue-names@example.com", "ISSUED")
		i := 0
		for bad, why := range hostileNames {
			i++
			path := "/public/v3/assertions/" + orig + "/reissue"
			r := f.postReissue(t, "v3", orig, "manager", fmt.Sprintf("re-names-%d", i), `{"recipientName":`+quote(bad)+`}`)
			requireError(t, r, path, http.StatusBadRequest, "COM006", "recipientName")
			require.Contains(t, r.Body["error"].(map[string]any)["message"], why, "%s", r.Raw)
		}
	})

	t.Run("names with quotes, commas, angle brackets and Hangul are kept as sent", func(t *testing.T) {
		for _, name := range []string{`Hanbit "Lifelong, Learning" Center`, `김 "민수, Jr." Lee`, `x" <a@evil.test> (`, "שלום \u200fKim"} {
			data := f.mustOK(t, http.MethodPost, "/public/v3/badges", f.keys["manager"], badgeBody(name, img, prog))
			require.Equal(t, name, data["name"])
		}
	})

	t.Run("long text may hold line breaks, tabs and bidirectional controls", func(t *testing.T) {
		text := "First line\r\nSecond\tline\n\u2067עברית\u2069 and \u202bRTL\u202c"
		data := f.mustOK(t, http.MethodPatch, "/public/v3/badges/"+badge, f.keys["manager"],
			`{"description":`+quote(text)+`,"criteria":[{"category":"OTHER","value":`+quote(text)+`}]}`)
		require.Equal(t, text, data["description"])
		require.Equal(t, text, jstr(t, data, "criteria.0.value"))
		data = f.mustOK(t, http.MethodPatch, "/public/v3/programs/"+prog, f.keys["manager"], `{"description":`+quote(text)+`}`)
		require.Equal(t, text, data["description"])
	})

	t.Run("long text refuses other control characters", func(t *testing.T) {
		for _, bad := range []string{"ring\u0007", "esc\u001b[2J", "c1\u0090", "v\u000bt"} {
			r := f.do(t, http.MethodPatch, "/public/v3/badges/"+badge, f.keys["manager"],
				`{"description":`+quote(bad)+`,"criteria":[{"category":"OTHER","value":`+quote(bad)+`}]}`)
			requireError(t, r, "/public/v3/badges/"+badge, http.StatusBadRequest, "COM006", "description", "criteria[0].value")
			r = f.do(t, http.MethodPatch, "/public/v3/programs/"+prog, f.keys["manager"], `{"description":`+quote(bad)+`}`)
			requireError(t, r, "/public/v3/programs/"+prog, http.StatusBadRequest, "COM006", "description")
		}
	})
}
