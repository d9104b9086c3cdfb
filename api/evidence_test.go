package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func rcptWithEvidence(email, evidence string) string {
	return `{"name":"Kim","email":"` + email + `","receiveType":"EMAIL","evidence":` + evidence + `}`
}

// TestEvidence_Stored: v3 recipients' evidence is stored as given (trimmed), none is NULL; a reissue and a renewal
// carry the original's evidence into the replacement.
func TestEvidence_Stored(t *testing.T) {
	f := newIssFixture(t)
	ev := `[{"url":" https://portfolio.example/kim ","name":"Capstone","narrative":"Built a compiler.\nIn Go.","genre":"Project"},
		{"narrative":"Presented to the faculty.","url":null}]`
	iss := f.mustIssue(t, "v3", "{badge1m}", "manager", "ev", issuanceBody("{program}", rcptWithEvidence("a@example.com", ev), rcpt("B", "b@example.com")))
	rows, err := f.d.Pool.Query(context.Background(), "SELECT id::text, evidence FROM assertions WHERE issuance_id = $1 ORDER BY seq", jstr(t, iss, "id"))
	require.NoError(t, err)
	var ids []string
	var stored [][]byte
	for rows.Next() {
		var id string
		var raw []byte
		require.NoError(t, rows.Scan(&id, &raw))
		ids, stored = append(ids, id), append(stored, raw)
	}
	require.NoError(t, rows.Err())
	require.JSONEq(t, `[{"url":"https://portfolio.example/kim","name":"Capstone","narrative":"Built a compiler.\nIn Go.","genre":"Project"},
		{"narrative":"Presented to the faculty."}]`, string(stored[0]))
	require.Nil(t, stored[1], "no evidence is NULL")

	f.setState(t, ids[0], "RECEIVED")
	re := f.postReissue(t, "v3", ids[0], "manager", "re", "")
	require.Equal(t, http.StatusOK, re.Status, "%s", re.Raw)
	f.setState(t, jstr(t, re.Body, "data.assertionId"), "RECEIVED")
	f.setState(t, ids[0], "REISSUED")
	rn := f.postRenew(t, jstr(t, re.Body, "data.assertionId"), "manager", "rn", "")
	require.Equal(t, http.StatusOK, rn.Status, "%s", rn.Raw)
	for _, id := range []string{jstr(t, re.Body, "data.assertionId"), jstr(t, rn.Body, "data.assertionId")} {
		var raw []byte
		require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT evidence FROM assertions WHERE id = $1", id).Scan(&raw))
		require.JSONEq(t, string(stored[0]), string(raw), "a replacement keeps the evidence")
	}
}

// TestEvidence_Refusals: bad evidence is COM006 (COM002 for a malformed value) naming the field; v2 refuses the
// field as it refuses any unknown one; nothing is written.
func TestEvidence_Refusals(t *testing.T) {
	f := newIssFixture(t)
	path := "/public/v3/badges/" + f.vars["{badge1m}"] + "/issuances"
	eleven := "[" + strings.TrimSuffix(strings.Repeat(`{"narrative":"n"},`, 11), ",") + "]"
	long := func(n int) string { b, _ := json.Marshal(strings.Repeat("가", n)); return string(b) }
	for _, tc := range []struct{ ev, code, field string }{
		{`[{"url":"http://portfolio.example/kim"}]`, "COM002", "recipients[0].evidence[0].url"},
		{`[{"url":"javascript:alert(1)"}]`, "COM002", "recipients[0].evidence[0].url"},
		{`[{"url":"https://user:pw@portfolio.example/"}]`, "COM002", "recipients[0].evidence[0].url"},
		{`[{"narrative":"ok"},{"name":"only a name"}]`, "COM006", "recipients[0].evidence[1].url"},
		{eleven, "COM006", "recipients[0].evidence"},
		{`[{"narrative":"ok","name":` + long(201) + `}]`, "COM006", "recipients[0].evidence[0].name"},
		{`[{"narrative":` + long(2001) + `}]`, "COM006", "recipients[0].evidence[0].narrative"},
		{`[{"narrative":"ok","genre":` + long(101) + `}]`, "COM006", "recipients[0].evidence[0].genre"},
		{`[{"narrative":"ok","name":"two\nlines"}]`, "COM006", "recipients[0].evidence[0].name"},
		{`[{"narrative":"bell\u0007"}]`, "COM006", "recipients[0].evidence[0].narrative"},
		{`[{"narrative":"ok","audience":"x"}]`, "COM006", "recipients[0].evidence[0].audience"},
		{`{"narrative":"ok"}`, "COM002", "recipients[0].evidence"},
		{`null`, "COM006", "recipients[0].evidence"},
	} {
		r := f.postIssuance(t, "v3", "{badge1m}", "manager", "bad", issuanceBody("{program}", rcptWithEvidence("a@example.com", tc.ev)))
		requireError(t, r, path, http.StatusBadRequest, tc.code, tc.field)
	}
	r := f.postIssuance(t, "v2", "{badge1m}", "manager", "bad", issuanceBody("{program}", rcptWithEvidence("a@example.com", `[{"narrative":"ok"}]`)))
	requireError(t, r, "/public/v2/badges/"+f.vars["{badge1m}"]+"/issuances", http.StatusBadRequest, "COM006", "recipients[0].evidence")
	var n int
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT count(*) FROM assertions WHERE org_id = $1", f.org.ID).Scan(&n))
	require.Zero(t, n)
}

// TestEvidence_InAssertionResources: v3 assertion resources (one assertion, the list) show each recipient's
// evidence as stored, [] for none, each checked against the contract; v2 resources have no evidence field.
func TestEvidence_InAssertionResources(t *testing.T) {
	f := newIssFixture(t)
	ev := `[{"url":"https://portfolio.example/kim","name":"Capstone","narrative":"Built a compiler.","genre":"Project"},
		{"narrative":"Presented to the faculty."}]`
	iss := f.mustIssue(t, "v3", "{badge1m}", "manager", "ev-read",
		issuanceBody("{program}", rcptWithEvidence("a@example.com", ev), rcpt("B", "b@example.com")))
	var withEv, without string
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), `SELECT (SELECT id::text FROM assertions WHERE issuance_id = $1 AND seq = 0),
		(SELECT id::text FROM assertions WHERE issuance_id = $1 AND seq = 1)`, jstr(t, iss, "id")).Scan(&withEv, &without))
	asJSON := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	}

	one := f.mustOK(t, http.MethodGet, "/public/v3/assertions/"+withEv, f.keys["viewer"], "")
	require.JSONEq(t, ev, asJSON(one["evidence"]))
	none := f.mustOK(t, http.MethodGet, "/public/v3/assertions/"+without, f.keys["viewer"], "")
	require.Equal(t, []any{}, none["evidence"], "no evidence is []")

	list := f.mustOK(t, http.MethodGet, "/public/v3/assertions?issuanceId="+jstr(t, iss, "id"), f.keys["viewer"], "")
	items := list["items"].([]any)
	require.Len(t, items, 2)
	for _, it := range items {
		a := it.(map[string]any)
		want := `[]`
		if a["id"] == withEv {
			want = ev
		}
		require.JSONEq(t, want, asJSON(a["evidence"]), "list item %s", a["id"])
	}

	v2 := f.mustOK(t, http.MethodGet, "/public/v2/assertions/"+withEv, f.keys["viewer"], "")
	require.NotContains(t, v2, "evidence", "v2 unchanged")
	v2list := f.mustOK(t, http.MethodGet, "/public/v2/assertions?issuanceId="+jstr(t, iss, "id"), f.keys["viewer"], "")
	for _, it := range v2list["items"].([]any) {
		require.NotContains(t, it.(map[string]any), "evidence")
	}
}
