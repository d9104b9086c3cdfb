package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/apikey"
)

// postReissue posts a reissue of assertion with an Idempotency-Key (noIdemKey: none); key names a fixture key or
// is sent as is.
func (f *issFixture) postReissue(tb testing.TB, version, assertion, key, idem, body string) response {
	tb.Helper()
	if k, ok := f.keys[key]; ok {
		key = k
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
		f.srv.URL+"/public/"+version+"/assertions/"+assertion+"/reissue", strings.NewReader(body))
	require.NoError(tb, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", key)
	if idem != noIdemKey {
		req.Header["Idempotency-Key"] = []string{idem}
	}
	res, err := f.srv.Client().Do(req)
	require.NoError(tb, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// mustIssuedAssertion issues one recipient through the API and stores the outcome the pipeline would (state,
// status-list entry), since these tests run no workflow; it returns the assertion id.
func (f *issFixture) mustIssuedAssertion(tb testing.TB, version, email, state string) string {
	tb.Helper()
	iss := f.mustIssue(tb, version, "{badge}", "manager", "issue-"+uuid.NewString(),
		issuanceBody("{program}", rcpt("Kim Minji", email)))
	var id string
	ctx := context.Background()
	require.NoError(tb, f.d.Pool.QueryRow(ctx, "SELECT id FROM assertions WHERE issuance_id = $1", jstr(tb, iss, "id")).Scan(&id))
	f.setState(tb, id, state)
	return id
}

func (f *issFixture) setState(tb testing.TB, id, state string) {
	tb.Helper()
	_, err := f.d.Pool.Exec(context.Background(), "UPDATE assertions SET state = $2 WHERE id = $1", id, state)
	require.NoError(tb, err)
}

// TestReissue_CreatesReplacement: the answer is a PROCESSING issuance of one recipient plus the replacement's id; the
// replacement copies the original's recipient, badge, program and dates, names its original, costs one credit and
// is started like an issuance; the original is untouched until the pipeline issues the replacement.
func TestReissue_CreatesReplacement(t *testing.T) {
	for _, v := range []string{"v2", "v3"} {
		t.Run(v, func(t *testing.T) {
			f := newIssFixture(t)
			orig := f.mustIssuedAssertion(t, v, "minji@example.com", "ISSUED")
			before, started := credits(t, f.d, f.org), len(f.starter.calls())

			r := f.postReissue(t, v, orig, "manager", "re-1", `{"recipientName":"  Kim Min-ji "}`)
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
			data := jget(t, r.Body, "data").(map[string]any)
			require.ElementsMatch(t, []string{"id", "badgeId", "programId", "processingStatus", "assertionCount",
				"createdAt", "updatedAt", "assertionId"}, keys(data))
			require.Equal(t, "PROCESSING", data["processingStatus"])
			require.EqualValues(t, 1, data["assertionCount"])
			require.Equal(t, f.vars["{badge}"], data["badgeId"])
			require.Equal(t, before-1, credits(t, f.d, f.org), "a reissue consumes one credit")
			calls := f.starter.calls()
			require.Len(t, calls, started+1, "the replacement's issuance is started like any issuance")
			require.Equal(t, data["id"], calls[len(calls)-1].ID.String())

			var (
				from, email, name, state string
				issuedSame, expirySame   bool
				replacementIssuance      string
			)
			require.NoError(t, f.d.Pool.QueryRow(context.Background(), `
				SELECT r.reissued_from::text, r.recipient_email, r.recipient_name, r.state, r.issuance_id::text,
				       r.issued_at = o.issued_at, r.expired_at IS NOT DISTINCT FROM o.expired_at
				FROM assertions r JOIN assertions o ON o.id = r.reissued_from WHERE r.id = $1`, data["assertionId"]).
				Scan(&from, &email, &name, &state, &replacementIssuance, &issuedSame, &expirySame))
			require.Equal(t, orig, from)
			require.Equal(t, "minji@example.com", email)
			require.Equal(t, "Kim Min-ji", name, "recipientName corrects the name, trimmed")
			require.Equal(t, "PROCESSING", state)
			require.Equal(t, data["id"], replacementIssuance)
			require.True(t, issuedSame && expirySame, "the replacement keeps the original's issuedAt and expiredAt")
			require.Equal(t, "ISSUED", jstr(t, f.mustOK(t, http.MethodGet, "/public/"+v+"/assertions/"+orig, f.keys["viewer"], ""), "stateCode"),
				"the original stays as it is until the replacement is issued")
		})
	}
}

// TestReissue_Idempotency: the issuance rules of the Idempotency-Key (ISS056, replay, ISS057) hold for reissues.
func TestReissue_Idempotency(t *testing.T) {
	for _, v := range []string{"v2", "v3"} {
		t.Run(v, func(t *testing.T) {
			f := newIssFixture(t)
			orig := f.mustIssuedAssertion(t, v, "a@example.com", "RECEIVED")
			other := f.mustIssuedAssertion(t, v, "b@example.com", "RECEIVED")
			path := "/public/" + v + "/assertions/" + orig + "/reissue"

			requireError(t, f.postReissue(t, v, orig, "manager", noIdemKey, "{}"), path, http.StatusBadRequest, "ISS056", "Idempotency-Key")
			requireError(t, f.postReissue(t, v, orig, "manager", strings.Repeat("k", 301), "{}"), path, http.StatusBadRequest, "ISS056", "Idempotency-Key")

			first := f.postReissue(t, v, orig, "manager", "same", "")
			require.Equal(t, http.StatusOK, first.Status, "%s", first.Raw)
			assertions, issuances, balance := countRows(t, f.d, "assertions", f.org), countRows(t, f.d, "issuances", f.org), credits(t, f.d, f.org)

			// An empty body is {}: the same request in both versions.
			for _, body := range []string{"", "{}", " { } "} {
				again := f.postReissue(t, v, orig, "manager", "same", body)
				require.Equal(t, http.StatusOK, again.Status, "%s", again.Raw)
				require.Equal(t, jget(t, first.Body, "data"), jget(t, again.Body, "data"), "a replay answers the same")
			}
			require.Equal(t, assertions, countRows(t, f.d, "assertions", f.org), "a replay creates nothing")
			require.Equal(t, issuances, countRows(t, f.d, "issuances", f.org))
			require.Equal(t, balance, credits(t, f.d, f.org))

			requireError(t, f.postReissue(t, v, orig, "manager", "same", `{"recipientName":"Other"}`), path, http.StatusConflict, "ISS057")
			requireError(t, f.postReissue(t, v, other, "manager", "same", "{}"),
				"/public/"+v+"/assertions/"+other+"/reissue", http.StatusConflict, "ISS057")
			// The key space is the badge's, shared with issuances: an issuance key is not a reissue key.
			f.mustIssue(t, v, "{badge}", "manager", "issued-key", issuanceBody("{program}", rcpt("C", "c@example.com")))
			requireError(t, f.postReissue(t, v, other, "manager", "issued-key", "{}"),
				"/public/"+v+"/assertions/"+other+"/reissue", http.StatusConflict, "ISS057")
			require.Equal(t, balance-1, credits(t, f.d, f.org), "only the issuance spent a credit")

			// While the replacement is in the pipeline, another key is AST022, and so is a cancel.
			requireError(t, f.postReissue(t, v, orig, "manager", "another", "{}"), path, http.StatusConflict, "AST022")
			cancel := f.do(t, http.MethodPost, "/public/"+v+"/assertions/"+orig+"/cancel", f.keys["manager"], "")
			requireError(t, cancel, "/public/"+v+"/assertions/"+orig+"/cancel", http.StatusConflict, "AST022")
			// Once the replacement failed, the original can be reissued again.
			_, err := f.d.Pool.Exec(context.Background(), "UPDATE assertions SET state = 'FAILED' WHERE reissued_from = $1", orig)
			require.NoError(t, err)
			again := f.postReissue(t, v, orig, "manager", "another", "{}")
			require.Equal(t, http.StatusOK, again.Status, "%s", again.Raw)
			require.NotEqual(t, jget(t, first.Body, "data.assertionId"), jget(t, again.Body, "data.assertionId"))
		})
	}
}

// TestReissue_Refusals: AST022 from every state that cannot be reissued (stored or read as EXPIRED), and the
// usual not-found, role and credit answers; none writes anything.
func TestReissue_Refusals(t *testing.T) {
	f := newIssFixture(t)
	states := map[string]string{}
	for _, s := range []string{"PROCESSING", "FAILED", "REVOKED", "REISSUED", "EXPIRED"} {
		states[s] = f.mustIssuedAssertion(t, "v3", strings.ToLower(s)+"@example.com", s)
	}
	lapsed := f.mustIssuedAssertion(t, "v3", "lapsed@example.com", "RECEIVED")
	_, err := f.d.Pool.Exec(context.Background(), "UPDATE assertions SET expired_at = $2 WHERE id = $1", lapsed, issNow.Add(-time.Minute))
	require.NoError(t, err)
	states["EXPIRED (read)"] = lapsed
	ok := f.mustIssuedAssertion(t, "v3", "ok@example.com", "RECEIVED")
	assertions, balance := countRows(t, f.d, "assertions", f.org), credits(t, f.d, f.org)

	for name, id := range states {
		for _, v := range []string{"v2", "v3"} {
			r := f.postReissue(t, v, id, "manager", "k-"+name, "{}")
			requireError(t, r, "/public/"+v+"/assertions/"+id+"/reissue", http.StatusConflict, "AST022")
			require.Contains(t, jstr(t, r.Body, "error.message"), "only ISSUED or RECEIVED", name)
		}
	}
	path := func(id string) string { return "/public/v3/assertions/" + id + "/reissue" }
	requireError(t, f.postReissue(t, "v3", f.vars["{missing}"], "manager", "k", "{}"), path(f.vars["{missing}"]), http.StatusNotFound, "AST001")
	requireError(t, f.postReissue(t, "v3", ok, "otherManager", "k", "{}"), path(ok), http.StatusNotFound, "AST001")
	requireError(t, f.postReissue(t, "v3", ok, "viewer", "k", "{}"), path(ok), http.StatusForbidden, "ORG004")
	testKey := mustModeKey(t, f.d, f.org, apikey.RoleManager, apikey.ModeTest)
	requireError(t, f.postReissue(t, "v3", ok, testKey, "k", "{}"), path(ok), http.StatusNotFound, "AST001")
	requireError(t, f.postReissue(t, "v3", "not-a-uuid", "manager", "k", "{}"), path("not-a-uuid"), http.StatusBadRequest, "COM002")
	requireError(t, f.postReissue(t, "v3", ok, "manager", "k", `{"recipientName":""}`), path(ok), http.StatusBadRequest, "COM006", "recipientName")
	requireError(t, f.postReissue(t, "v3", ok, "manager", "k", `{"email":"x@example.com"}`), path(ok), http.StatusBadRequest, "COM006", "email")
	setCredits(t, f.d, f.org, 0)
	requireError(t, f.postReissue(t, "v3", ok, "manager", "k", "{}"), path(ok), http.StatusPaymentRequired, "PAY054")
	setCredits(t, f.d, f.org, balance)
	require.Equal(t, assertions, countRows(t, f.d, "assertions", f.org), "a refused reissue writes nothing")
	require.Equal(t, balance, credits(t, f.d, f.org))
}

// TestAssertions_DisplayFilter: v2 lists REISSUED originals, v3 leaves them out unless stateCode asks for them,
// and totalElement agrees with the items on every counting path (counters, exact count, hour counters).
func TestAssertions_DisplayFilter(t *testing.T) {
	f := newIssFixture(t)
	reissued := f.mustIssuedAssertion(t, "v3", "old@example.com", "REISSUED")
	shown := f.mustIssuedAssertion(t, "v3", "new@example.com", "RECEIVED")
	var iss string
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT issuance_id FROM assertions WHERE id = $1", reissued).Scan(&iss))

	ids := func(v, query string) ([]string, float64) {
		data := f.mustOK(t, http.MethodGet, "/public/"+v+"/assertions?"+query, f.keys["viewer"], "")
		var out []string
		for _, it := range jget(t, data, "items").([]any) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out, jget(t, data, "pagination.totalElement").(float64)
	}
	for _, query := range []string{"", "badgeId=" + f.vars["{badge}"], "issuanceId=" + iss, "email=old@example.com",
		"startAt=2025-02-01T00:00:00Z", "startAt=2025-02-01T00:00:00Z&endAt=2025-02-20T00:00:00Z"} {
		got2, total2 := ids("v2", query)
		require.Contains(t, got2, reissued, "v2 shows REISSUED (%s)", query)
		require.EqualValues(t, len(got2), total2, "v2 total (%s)", query)
		got3, total3 := ids("v3", query)
		require.NotContains(t, got3, reissued, "v3 leaves REISSUED out (%s)", query)
		require.EqualValues(t, len(got3), total3, "v3 total (%s)", query)
		require.Equal(t, len(got2)-1, len(got3), "(%s)", query)
	}
	got, total := ids("v3", "stateCode=REISSUED")
	require.Equal(t, []string{reissued}, got, "v3 lists REISSUED when asked")
	require.EqualValues(t, 1, total)
	got, _ = ids("v3", "")
	require.Contains(t, got, shown)
	// The detail stays readable in both versions.
	for _, v := range []string{"v2", "v3"} {
		require.Equal(t, "REISSUED", jstr(t, f.mustOK(t, http.MethodGet, "/public/"+v+"/assertions/"+reissued, f.keys["viewer"], ""), "stateCode"))
	}
}
