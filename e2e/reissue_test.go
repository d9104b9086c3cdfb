package e2e

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/verifier"
)

// reissue posts POST /assertions/{id}/reissue with an Idempotency-Key and an empty body.
func (s *stack) reissue(tb testing.TB, v, key, assertion, idemKey string) response {
	tb.Helper()
	return s.postJSON(tb, "/public/"+v+"/assertions/"+assertion+"/reissue", key, map[string]string{"Idempotency-Key": idemKey}, "")
}

// statusOf reads the status bit of the credential served at /credentials/{id} in its signed status list.
func (s *stack) statusOf(tb testing.TB, id, org string) bool {
	tb.Helper()
	resolver := s.resolver(tb, org)
	cred := s.mustVerifiedCredential(tb, "/credentials/"+id, resolver, org)
	list := s.get(tb, statusListOf(tb, cred), "", "")
	require.Equal(tb, http.StatusOK, list.Status, "%s", list.Raw)
	_, err := credentialVerify(list.Raw, resolver)
	require.NoError(tb, err, "the status list credential verifies")
	set, err := credentialCheckStatus(cred, list.Raw)
	require.NoError(tb, err)
	return set
}

// TestReissue_EndToEnd reissues through the real pipeline in both versions: the replacement is signed, anchored,
// baked, published and mailed like any recipient and verifies; the original turns REISSUED with its status bit set
// and its page names the replacement; a replay answers the same and creates nothing; one credit is spent; v2 lists
// the original, v3 does not.
func TestReissue_EndToEnd(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	org := tn.Org.ID.String()
	for _, tc := range []struct{ v, issued string }{{"v2", "ISSUED"}, {"v3", "RECEIVED"}} {
		t.Run(tc.v, func(t *testing.T) {
			rs := emailRecipients("reissue-"+tc.v, 1)
			id := s.mustIssue(t, tc.v, tn.Key, tn.Badge, "orig-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
			require.Equal(t, "COMPLETED", s.waitIssuance(t, tc.v, tn.Key, id, issueTimeout)["processingStatus"])
			orig := s.assertionRows(t, id)[0].ID.String()
			require.False(t, s.statusOf(t, orig, org))
			before := s.credits(t, tn.Org.ID)

			idem := "reissue-" + uuid.NewString()
			d := s.reissue(t, tc.v, tn.Key, orig, idem).data(t)
			require.Equal(t, "PROCESSING", d["processingStatus"])
			repl := d["assertionId"].(string)
			require.Equal(t, "COMPLETED", s.waitIssuance(t, tc.v, tn.Key, d["id"].(string), issueTimeout)["processingStatus"])

			got := s.getAssertion(t, tc.v, tn.Key, repl)
			require.Equal(t, tc.issued, got["stateCode"], "%v", got)
			require.Nil(t, got["errorCode"])
			require.Equal(t, *rs[0].Email, got["recipient"].(map[string]any)["email"])
			require.False(t, s.statusOf(t, repl, org), "the replacement verifies and is not revoked")
			s.requireBakedImage(t, "/credentials/"+repl+"/image", s.mustVerifiedCredential(t, "/credentials/"+repl, s.resolver(t, org), org))
			require.Contains(t, messagesByID(t, s.SMTP.Messages()), messageID(repl), "the replacement is mailed")

			require.Equal(t, "REISSUED", s.getAssertion(t, tc.v, tn.Key, orig)["stateCode"])
			require.True(t, s.statusOf(t, orig, org), "the original's status bit is set")
			require.Equal(t, 1, s.count(t, "SELECT count(*) FROM assertions WHERE id = $1 AND replaced_by = $2", orig, repl))
			page := s.verifyPage(t, orig)
			require.Contains(t, page, "This badge was replaced by a newer badge</h1>")
			require.Contains(t, page, `<a href="`+s.BaseURL+"/verify/"+repl+`">See the new badge</a>`)
			require.Contains(t, s.verifyPage(t, repl), "This badge is valid</h1>")
			// The verifier of `badged credential verify` sees the bit and asks the credential's URL what replaced it.
			rep, err := verifier.Verify(context.Background(), s.get(t, "/credentials/"+orig, "", "").Raw, verifier.Options{})
			require.NoError(t, err)
			require.False(t, rep.Valid())
			status := rep.Checks[2]
			require.Equal(t, "status", status.Name)
			require.Equal(t, "replaced", status.Result, "%+v", status)
			require.Contains(t, status.Detail, s.BaseURL+"/credentials/"+repl)
			require.Equal(t, before-1, s.credits(t, tn.Org.ID), "a reissue spends one credit")

			assertions := s.count(t, "SELECT count(*) FROM assertions WHERE org_id = $1", tn.Org.ID)
			again := s.reissue(t, tc.v, tn.Key, orig, idem).data(t)
			require.Equal(t, d["id"], again["id"], "a replay answers the same issuance")
			require.Equal(t, repl, again["assertionId"])
			require.Equal(t, assertions, s.count(t, "SELECT count(*) FROM assertions WHERE org_id = $1", tn.Org.ID))
			require.Equal(t, before-1, s.credits(t, tn.Org.ID))

			r := s.reissue(t, tc.v, tn.Key, orig, "another-"+uuid.NewString())
			require.Equal(t, http.StatusConflict, r.Status, "%s", r.Raw)
			require.Equal(t, "AST022", r.errorCode(), "a REISSUED original cannot be reissued again")

			list := s.get(t, "/public/"+tc.v+"/assertions?email="+*rs[0].Email, tn.Key, "").data(t)
			var listed []string
			for _, it := range list["items"].([]any) {
				listed = append(listed, it.(map[string]any)["id"].(string))
			}
			if tc.v == "v2" {
				require.ElementsMatch(t, []string{orig, repl}, listed, "v2 shows REISSUED")
			} else {
				require.Equal(t, []string{repl}, listed, "v3 leaves the replaced original out")
			}
		})
	}
}

// TestReissue_RecipientGone: a reissue whose original lost its recipient record (erased) fails alone with
// RECIPIENT_NOT_FOUND; the original stays valid and unchanged, and the credit comes back.
func TestReissue_RecipientGone(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	org := tn.Org.ID.String()
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "orig-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("gone", 1), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	orig := s.assertionRows(t, id)[0].ID.String()
	_, err := s.DB.Pool.Exec(context.Background(), "UPDATE assertions SET recipient_email = NULL WHERE id = $1", orig)
	require.NoError(t, err)
	before := s.credits(t, tn.Org.ID)

	d := s.reissue(t, "v3", tn.Key, orig, "gone-"+uuid.NewString()).data(t)
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, d["id"].(string), issueTimeout)["processingStatus"])
	got := s.getAssertion(t, "v3", tn.Key, d["assertionId"].(string))
	require.Equal(t, "FAILED", got["stateCode"])
	require.Equal(t, "RECIPIENT_NOT_FOUND", got["errorCode"])

	require.Equal(t, "RECEIVED", s.getAssertion(t, "v3", tn.Key, orig)["stateCode"], "a failed replacement leaves the original as it was")
	require.False(t, s.statusOf(t, orig, org), "the original's status bit stays clear")
	require.Contains(t, s.verifyPage(t, orig), "This badge is valid</h1>")
	require.Equal(t, before, s.credits(t, tn.Org.ID), "the failed replacement's credit is refunded")
}
