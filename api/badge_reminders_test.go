package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// expiryReminders is a v3 extension of badges: read back in descending order, [] by default, changed and cleared
// by PATCH, bounded, and unknown to v2.
func TestBadges_ExpiryReminders(t *testing.T) {
	f := newFixture(t)
	body := func(reminders string) string {
		return f.expand(`{"name":"Renewable","description":"d","categoryCode":"OTHER",` +
			`"criteria":[{"category":"OTHER","value":"v"}],"skills":[{"sourceType":"CUSTOM","skillName":"Go"}],` +
			`"imageId":"{image}","expirationPolicy":{"relativeExpirationMonths":12}` + reminders + `}`)
	}
	data := f.mustOK(t, http.MethodPost, "/public/v3/badges", f.keys["manager"], body(`,"expiryReminders":[7,30,1]`))
	id := jstr(t, data, "id")
	require.Equal(t, []any{float64(30), float64(7), float64(1)}, data["expiryReminders"])
	path := "/public/v3/badges/" + id
	require.Equal(t, data, f.mustOK(t, http.MethodGet, path, f.keys["viewer"], ""))

	v2 := f.mustOK(t, http.MethodGet, "/public/v2/badges/"+id, f.keys["viewer"], "")
	require.NotContains(t, v2, "expiryReminders", "not in v2")
	requireError(t, f.do(t, http.MethodPost, "/public/v2/badges", f.keys["manager"], body(`,"expiryReminders":[7]`)),
		"/public/v2/badges", 400, "COM006", "expiryReminders")

	edited := f.mustOK(t, http.MethodPatch, path, f.keys["manager"], `{"expiryReminders":[14]}`)
	require.Equal(t, []any{float64(14)}, edited["expiryReminders"])
	kept := f.mustOK(t, http.MethodPatch, path, f.keys["manager"], `{"name":"Renamed"}`)
	require.Equal(t, []any{float64(14)}, kept["expiryReminders"], "omitted keeps")
	cleared := f.mustOK(t, http.MethodPatch, path, f.keys["manager"], `{"expiryReminders":[]}`)
	require.Equal(t, []any{}, cleared["expiryReminders"])

	for _, c := range []struct{ name, body, field, code string }{
		{"zero days", `{"expiryReminders":[0]}`, "expiryReminders[0]", "COM006"},
		{"more than a year", `{"expiryReminders":[30,366]}`, "expiryReminders[1]", "COM006"},
		{"duplicate", `{"expiryReminders":[7,7]}`, "expiryReminders[1]", "COM006"},
		{"too many", `{"expiryReminders":[1,2,3,4,5,6]}`, "expiryReminders", "COM006"},
		{"not a number", `{"expiryReminders":["7"]}`, "expiryReminders[0]", "COM002"},
		{"fraction", `{"expiryReminders":[1.5]}`, "expiryReminders[0]", "COM002"},
		{"null", `{"expiryReminders":null}`, "expiryReminders", "COM006"},
		{"not an array", `{"expiryReminders":7}`, "expiryReminders", "COM002"},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireError(t, f.do(t, http.MethodPatch, path, f.keys["manager"], c.body), path, 400, c.code, c.field) // COM002: not a whole number or array
		})
	}
	require.Equal(t, cleared["expiryReminders"], f.mustOK(t, http.MethodGet, path, f.keys["viewer"], "")["expiryReminders"])
}
