package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// dryRun posts the issuance of badge to version with ?dryRun=query (e.g. "true").
func (f *issFixture) dryRun(tb testing.TB, version, badge, idem, body, query string) response {
	tb.Helper()
	return f.postIssuanceTo(tb, f.issuancePath(version, badge)+"?dryRun="+query, f.keys["manager"], idem, body)
}

// mustDryRun is dryRun=true that must answer 200 in the envelope; it returns data.
func (f *issFixture) mustDryRun(tb testing.TB, version, badge, idem, body string) map[string]any {
	tb.Helper()
	r := f.dryRun(tb, version, badge, idem, body, "true")
	require.Equal(tb, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(tb, true, r.Body["success"], "%s", r.Raw)
	data, ok := r.Body["data"].(map[string]any)
	require.True(tb, ok, "%s", r.Raw)
	return data
}

// digest is one hash of every row of every table.
func (f *issFixture) digest(tb testing.TB, query string) string {
	tb.Helper()
	var s string
	require.NoError(tb, f.d.Pool.QueryRow(context.Background(), query).Scan(&s))
	return s
}

// problemCodes lists code (and recipientIndex, when set) of every problem of a dry-run answer.
func problemCodes(tb testing.TB, data map[string]any) []string {
	tb.Helper()
	var out []string
	for _, p := range jget(tb, data, "problems").([]any) {
		m := p.(map[string]any)
		code := m["code"].(string)
		if i, ok := m["recipientIndex"]; ok {
			code += fmt.Sprintf("@%v", i)
		}
		out = append(out, code)
	}
	return out
}

func TestIssuanceDryRun_WritesNothingAndLeavesTheKeyUnused(t *testing.T) {
	f := newIssFixture(t)
	snap := tablesDigestSQL(t, f.d)
	body := issuanceBody("{program}", rcpt("김민수", " Minsu@Example.com "), rcpt("Lee", "lee@example.com"))
	for _, v := range testVersions {
		t.Run(v, func(t *testing.T) {
			setCredits(t, f.d, f.org, 5)
			before, startsBefore := f.digest(t, snap), len(f.starter.calls())
			data := f.mustDryRun(t, v, "{badge}", "dry-"+v, body)
			require.Equal(t, f.digest(t, snap), before, "a dry run wrote something")
			require.Len(t, f.starter.calls(), startsBefore, "a dry run started a workflow")

			require.Equal(t, true, data["wouldSucceed"], "%v", data)
			require.Nil(t, data["replayOf"])
			require.Empty(t, data["problems"])
			require.Equal(t, float64(2), data["recipientCount"])
			require.Equal(t, float64(2), data["creditsRequired"])
			require.Equal(t, float64(5), data["creditsAvailable"])
			require.Equal(t, f.expand("{program}"), data["programId"])
			require.Equal(t, "minsu@example.com", jstr(t, data, "recipients.0.email"), "normalized as it would be stored")
			require.Equal(t, "EMAIL", jstr(t, data, "recipients.0.receiveType"))
			require.NotContains(t, jget(t, data, "recipients.0").(map[string]any), "serialNumber")
			if v == "v3" {
				require.Equal(t, "2025-02-10T00:00:00Z", data["issuedAt"])
			} else {
				require.NotContains(t, data, "issuedAt")
			}

			// The same key then works for the real request, and takes what the dry run said.
			iss := f.mustIssue(t, v, "{badge}", "manager", "dry-"+v, body)
			require.Equal(t, float64(2), iss["assertionCount"])
			require.Equal(t, int64(3), credits(t, f.d, f.org))
			require.Len(t, f.starter.calls(), startsBefore+1)

			// A dry run of the replay names the issuance the real request would return and takes nothing.
			before = f.digest(t, snap)
			again := f.mustDryRun(t, v, "{badge}", "dry-"+v, body)
			require.Equal(t, f.digest(t, snap), before)
			require.Equal(t, true, again["wouldSucceed"], "%v", again)
			require.Equal(t, iss["id"], again["replayOf"])
			require.Equal(t, float64(0), again["creditsRequired"])
		})
	}
}

func TestIssuanceDryRun_ReportsEveryBusinessProblem(t *testing.T) {
	f := newIssFixture(t)
	snap := tablesDigestSQL(t, f.d)
	two := issuanceBody("{program}", rcpt("A", "a@example.com"), rcpt("B", "b@example.com"))
	for _, v := range testVersions {
		t.Run("insufficient credits/"+v, func(t *testing.T) {
			setCredits(t, f.d, f.org, 1)
			before := f.digest(t, snap)
			data := f.mustDryRun(t, v, "{badge}", "credits-"+v, two)
			require.Equal(t, f.digest(t, snap), before)
			require.Equal(t, false, data["wouldSucceed"])
			require.Equal(t, []string{"PAY054"}, problemCodes(t, data))
			require.Equal(t, float64(402), jget(t, data, "problems.0.status"), "the status the real request answers")
			// The real request fails the same way.
			requireError(t, f.postIssuance(t, v, "{badge}", "manager", "credits-"+v, two),
				f.issuancePath(v, "{badge}"), http.StatusPaymentRequired, "PAY054")
		})
		t.Run("key used with a different body/"+v, func(t *testing.T) {
			setCredits(t, f.d, f.org, 10)
			f.mustIssue(t, v, "{badge}", "manager", "used-"+v, two)
			other := issuanceBody("{program}", rcpt("B", "b@example.com"), rcpt("A", "a@example.com")) // order counts
			before := f.digest(t, snap)
			data := f.mustDryRun(t, v, "{badge}", "used-"+v, other)
			require.Equal(t, f.digest(t, snap), before)
			require.Equal(t, false, data["wouldSucceed"])
			require.Equal(t, []string{"ISS057"}, problemCodes(t, data))
			require.Equal(t, float64(409), jget(t, data, "problems.0.status"))
			require.Equal(t, "Idempotency-Key", jget(t, data, "problems.0.field"))
			requireError(t, f.postIssuance(t, v, "{badge}", "manager", "used-"+v, other),
				f.issuancePath(v, "{badge}"), http.StatusConflict, "ISS057")
		})
		t.Run("all at once, in the real request's order/"+v, func(t *testing.T) {
			setCredits(t, f.d, f.org, 0)
			before := f.digest(t, snap)
			data := f.mustDryRun(t, v, "{fixedBadge}", "all-"+v, issuanceBody("{program2}", rcpt("A", "a@example.com")))
			require.Equal(t, f.digest(t, snap), before)
			require.Equal(t, false, data["wouldSucceed"])
			require.Equal(t, []string{"BDG064", "COM006", "PAY054"}, problemCodes(t, data), "FIXED, program not linked, credits")
			require.Equal(t, "programId", jget(t, data, "problems.1.field"))
			requireError(t, f.postIssuance(t, v, "{fixedBadge}", "manager", "all-"+v, issuanceBody("{program2}", rcpt("A", "a@example.com"))),
				f.issuancePath(v, "{fixedBadge}"), http.StatusBadRequest, "BDG064")
		})
		t.Run("unknown program/"+v, func(t *testing.T) {
			setCredits(t, f.d, f.org, 10)
			data := f.mustDryRun(t, v, "{badge}", "prg-"+v, issuanceBody("{otherProgram}", rcpt("A", "a@example.com")))
			require.Equal(t, []string{"PRG001"}, problemCodes(t, data))
			require.Equal(t, float64(404), jget(t, data, "problems.0.status"))
		})
		t.Run("duplicate and incomplete recipients fail alone/"+v, func(t *testing.T) {
			setCredits(t, f.d, f.org, 10)
			body := issuanceBody("{program}", rcpt("A", "a@example.com"), `{"name":"K","receiveType":"KAKAOTALK","email":"k@example.com"}`,
				rcpt("A again", "A@example.com"))
			data := f.mustDryRun(t, v, "{badge}", "dup-"+v, body)
			require.Equal(t, true, data["wouldSucceed"], "the request is accepted; those recipients end FAILED")
			require.Equal(t, []string{"MISSING_INFO@1", "DUPLICATE_ISSUANCE@2"}, problemCodes(t, data))
			require.Nil(t, jget(t, data, "recipients.0.errorCode"))
			require.Equal(t, "DUPLICATE_ISSUANCE", jget(t, data, "recipients.2.errorCode"))
			require.Equal(t, float64(3), data["creditsRequired"], "credits are debited per recipient and refunded for FAILED ones")
		})
	}
	t.Run("expiry already past (v3 issuedAt)", func(t *testing.T) {
		setCredits(t, f.d, f.org, 10)
		data := f.mustDryRun(t, "v3", "{badge1m}", "exp", `{"programId":"{program}","issuedAt":"2024-01-01T00:00:00Z","recipients":[`+
			rcpt("A", "a@example.com")+`]}`)
		require.Equal(t, []string{"ISS061"}, problemCodes(t, data))
		require.Equal(t, "issuedAt", jget(t, data, "problems.0.field"))
		require.Equal(t, "2024-01-31T15:00:00Z", data["expiredAt"], "2024-02-01 00:00 Seoul")
	})
}

// TestIssuanceDryRun_RequestErrorsAnswerAsTheRealRequest: what leaves nothing to check (a body that is not a JSON
// object, an unknown badge) the dry run refuses with the same status and error body as the real request.
func TestIssuanceDryRun_RequestErrorsAnswerAsTheRealRequest(t *testing.T) {
	f := newIssFixture(t)
	snap := tablesDigestSQL(t, f.d)
	cases := []struct {
		name, badge, idem, body string
		status                  int
		code                    string
	}{
		{"malformed JSON", "{badge}", "k2", `{"programId":`, 400, "COM002"},
		{"not an object", "{badge}", "k3", `[1]`, 400, "COM002"},
		{"unknown badge", "{otherBadge}", "k4", issuanceBody("{program}", rcpt("A", "a@example.com")), 404, "BDG001"},
	}
	for _, v := range testVersions {
		for _, c := range cases {
			t.Run(c.name+"/"+v, func(t *testing.T) {
				before := f.digest(t, snap)
				dry := f.dryRun(t, v, c.badge, c.idem, c.body, "true")
				require.Equal(t, f.digest(t, snap), before)
				requireError(t, dry, f.issuancePath(v, c.badge), c.status, c.code)
				real := f.postIssuance(t, v, c.badge, "manager", c.idem, c.body)
				requireError(t, real, f.issuancePath(v, c.badge), c.status, c.code)
				dryErr, realErr := dry.Body["error"].(map[string]any), real.Body["error"].(map[string]any)
				delete(dryErr, "timestamp")
				delete(realErr, "timestamp")
				require.Equal(t, realErr, dryErr)
			})
		}
	}
	for _, bad := range []string{"yes", "1", "TRUE", "", "true&dryRun=true"} {
		t.Run("dryRun="+bad, func(t *testing.T) {
			before := f.digest(t, snap)
			r := f.dryRun(t, "v3", "{badge}", "k6", issuanceBody("{program}", rcpt("A", "a@example.com")), bad)
			requireError(t, r, f.issuancePath("v3", "{badge}"), http.StatusBadRequest, "COM002", "dryRun")
			require.Equal(t, f.digest(t, snap), before)
		})
	}
	t.Run("dryRun=false is the real request", func(t *testing.T) {
		data := jget(t, f.dryRun(t, "v3", "{badge}", "k7", issuanceBody("{program}", rcpt("A", "a@example.com")), "false").Body, "data")
		require.Equal(t, "PROCESSING", jstr(t, data, "processingStatus"))
	})
}

// TestIssuanceDryRun_ShapeProblemsEachWithACode: a dry run of a request whose shape is wrong in many places lists
// each problem with its own code and field (the real request answers one 400), and still checks the stored data
// (the program's link to the badge, the credits) with what could be read.
func TestIssuanceDryRun_ShapeProblemsEachWithACode(t *testing.T) {
	f := newIssFixture(t)
	snap := tablesDigestSQL(t, f.d)
	setCredits(t, f.d, f.org, 1)
	body := `{"programId":"{program2}","issuedAt":"2030-01-01T00:00:00Z","extra":1,"recipients":[` +
		`{"name":"A","email":"not-an-email","receiveType":"EMAIL"},{"name":"B","email":"b@example.com","receiveType":"FAX"}]}`
	before := f.digest(t, snap)
	data := f.mustDryRun(t, "v3", "{badge}", noIdemKey, body)
	require.Equal(t, f.digest(t, snap), before, "a dry run writes nothing")
	var got []string
	for _, p := range jget(t, data, "problems").([]any) {
		m := p.(map[string]any)
		require.NotEmpty(t, m["message"])
		require.NotContains(t, m, "recipientIndex")
		got = append(got, fmt.Sprintf("%s %v %v", m["code"], m["status"], m["field"]))
	}
	require.ElementsMatch(t, []string{
		"ISS056 400 Idempotency-Key",
		"COM006 400 extra",
		"COM002 400 recipients[0].email",
		"COM006 400 recipients[1].receiveType",
		"ISS059 400 issuedAt",
		"COM006 400 programId", // stored data: program2 is not linked to the badge
		"PAY054 402 <nil>",     // stored data: 1 credit for 2 recipients
	}, got)
	require.Equal(t, false, data["wouldSucceed"])
	require.EqualValues(t, 2, data["recipientCount"])
	require.EqualValues(t, 2, data["creditsRequired"])
	require.Empty(t, data["recipients"], "recipients are not previewed when their shape is wrong")
	require.NotContains(t, data, "issuedAt")

	// The real request answers the first kind of problem as one error.
	real := f.postIssuance(t, "v3", "{badge}", "manager", noIdemKey, body)
	requireError(t, real, f.issuancePath("v3", "{badge}"), 400, "ISS056")

	t.Run("missing recipients and programId: the badge is still checked", func(t *testing.T) {
		data := f.mustDryRun(t, "v2", "{fixedBadge}", "k-shape", `{}`)
		require.ElementsMatch(t, []string{"COM006", "COM006", "BDG064"}, problemCodes(t, data))
		require.Equal(t, false, data["wouldSucceed"])
	})
}
