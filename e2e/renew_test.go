package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/webhook"
)

// credentialValidUntil reads validFrom and validUntil of the verified credential of assertion id.
func (s *stack) credentialValidity(tb testing.TB, id, org string) (time.Time, time.Time) {
	tb.Helper()
	raw := s.mustVerifiedCredential(tb, "/credentials/"+id, s.resolver(tb, org), org)
	var doc struct {
		ValidFrom  time.Time `json:"validFrom"`
		ValidUntil time.Time `json:"validUntil"`
	}
	require.NoError(tb, json.Unmarshal(raw, &doc))
	return doc.ValidFrom, doc.ValidUntil
}

// TestRenewal_EndToEnd renews through the real pipeline: one assertion alone, then the rest of the badge by date in
// one bulk renewal. Each replacement is signed with the new validity (issued now, twelve months by the badge's
// policy) and verifies; each original turns REISSUED with its status bit set and sends assertion.renewed naming its
// replacement; replays answer the same and spend nothing; one credit per renewal.
func TestRenewal_EndToEnd(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 20)
	org := tn.Org.ID.String()
	rcv := newReceiver(t)
	_, secret := s.mustWebhook(t, tn.Key, rcv.URL(), webhook.AssertionRenewed)
	rcv.setSecret(secret)
	r := s.request(t, http.MethodPatch, "/public/v3/badges/"+tn.Badge, tn.Key, map[string]string{"Content-Type": "application/json"},
		strings.NewReader(`{"expirationPolicy":{"relativeExpirationMonths":12}}`))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)

	// The first recipient carries evidence: signed into its credential by the real sign step, kept by its renewal.
	var rs []map[string]any
	for i, r := range emailRecipients("renew", 3) {
		m := map[string]any{"name": r.Name, "email": *r.Email, "receiveType": r.ReceiveType}
		if i == 0 {
			m["evidence"] = []map[string]string{{"url": "https://portfolio.example/renew", "name": "Capstone", "narrative": "Built a compiler.", "genre": "Project"}}
		}
		rs = append(rs, m)
	}
	raw, err := json.Marshal(map[string]any{"programId": tn.Program, "recipients": rs})
	require.NoError(t, err)
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "orig-"+uuid.NewString(), string(raw))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	rows := s.assertionRows(t, id)
	// All three expire within days; the first has already lapsed (renewing an expired badge is allowed).
	evidence := `"evidence":[{"genre":"Project","id":"https://portfolio.example/renew","name":"Capstone","narrative":"Built a compiler.","type":["Evidence"]}]`
	require.Contains(t, string(s.mustVerifiedCredential(t, "/credentials/"+rows[0].ID.String(), s.resolver(t, org), org)), evidence)
	_, err = s.DB.Pool.Exec(t.Context(), `UPDATE assertions SET expired_at = now() + interval '2 days' WHERE issuance_id = $1`, rows[0].IssuanceID)
	require.NoError(t, err)
	_, err = s.DB.Pool.Exec(t.Context(), `UPDATE assertions SET expired_at = now() - interval '1 hour' WHERE id = $1`, rows[0].ID)
	require.NoError(t, err)
	before := s.credits(t, tn.Org.ID)

	// One assertion.
	orig := rows[0].ID.String()
	idem := map[string]string{"Idempotency-Key": "renew-" + uuid.NewString()}
	d := s.postJSON(t, "/public/v3/assertions/"+orig+"/renew", tn.Key, idem, "").data(t)
	repl := d["assertionId"].(string)
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, d["id"].(string), issueTimeout)["processingStatus"])
	require.Equal(t, "RECEIVED", s.getAssertion(t, "v3", tn.Key, repl)["stateCode"])
	from, until := s.credentialValidity(t, repl, org)
	require.WithinDuration(t, time.Now(), from, 5*time.Minute, "the renewal is issued now")
	require.WithinDuration(t, time.Now().AddDate(1, 0, 0), until, 49*time.Hour, "valid twelve months from now (a Seoul date)")
	require.False(t, s.statusOf(t, repl, org))
	require.Contains(t, string(s.mustVerifiedCredential(t, "/credentials/"+repl, s.resolver(t, org), org)), evidence, "the renewal keeps the evidence")
	page := s.verifyPage(t, repl)
	require.Contains(t, page, `<h2 id="evidence">Evidence</h2>`)
	require.Contains(t, page, `<a href="https://portfolio.example/renew" rel="noopener noreferrer nofollow">Capstone</a>`)
	require.Equal(t, "REISSUED", s.getAssertion(t, "v3", tn.Key, orig)["stateCode"])
	require.True(t, s.statusOf(t, orig, org), "the renewed original's status bit is set")
	ev := rcv.waitEvent(t, webhook.AssertionRenewed, "assertionId", orig)
	var ad webhook.AssertionData
	require.NoError(t, json.Unmarshal(ev.Data, &ad))
	require.Equal(t, repl, ad.RenewedAs.String())
	require.Nil(t, ad.ReissuedAs)
	again := s.postJSON(t, "/public/v3/assertions/"+orig+"/renew", tn.Key, idem, "").data(t)
	require.Equal(t, d["id"], again["id"], "a replay answers the same renewal")
	require.Equal(t, before-1, s.credits(t, tn.Org.ID))

	// The rest by date: the two left expire before the day after tomorrow; the new replacement does not.
	date := time.Now().In(seoul(t)).AddDate(0, 0, 3).Format(time.DateOnly)
	bulkKey := map[string]string{"Idempotency-Key": "bulk-" + uuid.NewString()}
	body := `{"expiringBefore":"` + date + `"}`
	b := s.postJSON(t, "/public/v3/badges/"+tn.Badge+"/renewals", tn.Key, bulkKey, body).data(t)
	require.EqualValues(t, 2, b["assertionCount"])
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, b["id"].(string), issueTimeout)["processingStatus"])
	got := s.get(t, "/public/v3/badges/"+tn.Badge+"/renewals/"+b["id"].(string), tn.Key, "").data(t)
	require.Equal(t, map[string]any{"RECEIVED": float64(2)}, got["countsByState"])
	for _, o := range rows[1:] {
		require.Equal(t, "REISSUED", s.getAssertion(t, "v3", tn.Key, o.ID.String())["stateCode"])
		require.True(t, s.statusOf(t, o.ID.String(), org))
		ev := rcv.waitEvent(t, webhook.AssertionRenewed, "assertionId", o.ID.String())
		require.NoError(t, json.Unmarshal(ev.Data, &ad))
		require.Equal(t, b["id"], s.getAssertion(t, "v3", tn.Key, ad.RenewedAs.String())["issuanceId"])
		require.False(t, s.statusOf(t, ad.RenewedAs.String(), org))
	}
	replay := s.postJSON(t, "/public/v3/badges/"+tn.Badge+"/renewals", tn.Key, bulkKey, body).data(t)
	require.Equal(t, b["id"], replay["id"])
	require.Equal(t, before-3, s.credits(t, tn.Org.ID), "one credit per renewal, none for replays")
	// Nothing is left to renew before that date.
	r = s.postJSON(t, "/public/v3/badges/"+tn.Badge+"/renewals", tn.Key, map[string]string{"Idempotency-Key": "empty"}, body)
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Raw)
	require.Equal(t, "COM006", r.errorCode())
}
