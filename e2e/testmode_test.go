package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
	"github.com/badged/badged/internal/expiry"
	"github.com/badged/badged/internal/verifier"
)

// TestTestMode_CredentialIsATest issues through the real pipeline with a test key and checks that the credential
// can never pass for a live one: it is signed by the organization's test issuer (its own key and document, marked
// as a test issuer, with "[TEST]" in the name), the live issuer's document does not verify it, the verifier of
// `badged credential verify` reports TEST and not valid, the page and the status JSON say test, it expires within
// expiry.TestValidity, and the test key (never a live key) can revoke it through its own status list. It stays
// out of the chain, SMTP and the credits.
func TestTestMode_CredentialIsATest(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	org := tn.Org.ID.String()
	ctx := context.Background()

	// A live issuance first, so that the live issuer has its key and document.
	liveIss := s.mustIssue(t, "v3", tn.Key, tn.Badge, "live-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("live", 1), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, liveIss, issueTimeout)["processingStatus"])
	live := s.assertionRows(t, liveIss)[0].ID.String()
	credits, anchors, mails := s.credits(t, tn.Org.ID), s.count(t, "SELECT count(*) FROM chain_txs"), len(s.SMTP.Messages())

	// The server reads its clock while the POST is in flight and keeps whole seconds: the signed validUntil lies
	// between the second the request left and the moment its answer came back, plus TestValidity.
	sent := time.Now().Truncate(time.Second)
	id := s.mustIssue(t, "v3", tn.TestKey, tn.Badge, "test-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("sandbox", 1), ""))
	answered := time.Now()
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.TestKey, id, issueTimeout)["processingStatus"])
	row := s.assertionRows(t, id)[0]
	test := row.ID.String()
	require.Equal(t, "test", row.Mode)
	require.Equal(t, "RECEIVED", row.State)
	require.Equal(t, credits, s.credits(t, tn.Org.ID), "test issuances spend no credits")
	require.Equal(t, anchors, s.count(t, "SELECT count(*) FROM chain_txs"), "test credentials are not anchored")
	require.Len(t, s.SMTP.Messages(), mails, "the test recipient's mail went to the outbox, not to SMTP")

	// Each key reads only its own mode's assertions.
	require.Equal(t, "RECEIVED", s.getAssertion(t, "v3", tn.TestKey, test)["stateCode"])
	for _, c := range []struct{ key, id, path string }{{tn.Key, test, ""}, {tn.TestKey, live, ""}, {tn.Key, test, "/pdf"}, {tn.TestKey, live, "/pdf"}} {
		r := s.get(t, "/public/v3/assertions/"+c.id+c.path, c.key, "")
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Raw)
		require.Equal(t, "AST001", r.errorCode())
	}

	// The credential names the test issuer, which says TEST, and a bounded validity.
	cred := s.get(t, "/credentials/"+test, "", "")
	require.Equal(t, http.StatusOK, cred.Status, "%s", cred.Raw)
	var doc struct {
		Issuer struct {
			ID, Name, Description string
		} `json:"issuer"`
		ValidFrom, ValidUntil time.Time
	}
	require.NoError(t, json.Unmarshal(cred.Raw, &doc))
	liveID, testID := s.BaseURL+"/issuers/"+org, s.BaseURL+"/issuers/"+org+"/test"
	require.Equal(t, testID, doc.Issuer.ID)
	require.Equal(t, "[TEST] "+tn.Org.Name, doc.Issuer.Name)
	require.Contains(t, doc.Issuer.Description, "not real badges")
	require.False(t, doc.ValidUntil.IsZero(), "a test credential always expires")
	require.False(t, doc.ValidUntil.After(answered.Add(expiry.TestValidity)), "validUntil %s", doc.ValidUntil)
	require.False(t, doc.ValidUntil.Before(sent.Add(expiry.TestValidity)), "validUntil %s", doc.ValidUntil)
	expiredAt, err := time.Parse(time.RFC3339, s.getAssertion(t, "v3", tn.TestKey, test)["expiredAt"].(string))
	require.NoError(t, err)
	require.True(t, doc.ValidUntil.Equal(expiredAt), "the API's expiredAt is the signed validUntil")

	// The live issuer's document does not verify it; the test issuer's does, and says what it is.
	_, err = credential.Verify(ctx, cred.Raw, s.resolver(t, org))
	require.Error(t, err, "a test credential verifies with the live issuer's document")
	testDoc := s.get(t, "/issuers/"+org+"/test", "", "")
	require.Equal(t, http.StatusOK, testDoc.Status, "%s", testDoc.Raw)
	require.Equal(t, liveID, credential.TestIssuerOf(testDoc.Raw))
	require.Contains(t, string(testDoc.Raw), `"name":"[TEST] `)
	testKeys, err := credential.ParseControllerDocument(testDoc.Raw)
	require.NoError(t, err)
	require.Len(t, testKeys, 1)
	liveDoc := s.get(t, "/issuers/"+org, "", "")
	require.NotContains(t, string(liveDoc.Raw), credential.EncodeMultikey(testKeys[0].PublicKey), "the live document lists the test key")
	require.NotContains(t, string(liveDoc.Raw), credential.TestIssuerTerm)
	res, err := credential.NewStaticResolver(testDoc.Raw)
	require.NoError(t, err)
	got, err := credential.Verify(ctx, cred.Raw, res)
	require.NoError(t, err)
	require.Equal(t, liveID, got.TestIssuerOf)

	// `badged credential verify` (its verifier, resolving over HTTP as the command does) reports a test.
	rep := s.verifyCredential(t, cred.Raw)
	require.True(t, rep.Test(), "%+v", rep.Checks)
	require.False(t, rep.Valid(), "a test credential is never valid: %+v", rep.Checks)
	requireCheck(t, rep, "signature", "ok")
	requireCheck(t, rep, "issuer", "test")
	requireCheck(t, rep, "status", "ok")

	// The page and the status JSON say it is a test.
	page := s.verifyPage(t, test)
	require.Contains(t, page, "Test credential — not a real badge</h1>")
	require.NotContains(t, page, "This badge is valid")
	require.NotContains(t, page, "linkedin.com", "a test credential is not offered to a profile")
	require.Contains(t, s.pageIn(t, test, "ko"), "테스트 인증서 — 실제 배지가 아닙니다</h1>")
	st := s.get(t, "/credentials/"+test+"/status", "", "").object(t)
	require.Equal(t, "TEST", st["state"])
	require.Equal(t, true, st["test"])

	// Only the test key cancels it; the test issuer's status list then says so to every verifier.
	r := s.postJSON(t, "/public/v3/assertions/"+test+"/cancel", tn.Key, nil, "")
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Raw)
	require.Equal(t, "AST001", r.errorCode())
	r = s.postJSON(t, "/public/v3/assertions/"+live+"/cancel", tn.TestKey, nil, "")
	require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Raw)
	require.Equal(t, "RECEIVED", s.getAssertion(t, "v3", tn.Key, live)["stateCode"], "a test key revoked a live credential")
	require.Equal(t, "REVOKED", s.postJSON(t, "/public/v3/assertions/"+test+"/cancel", tn.TestKey, nil, "").data(t)["stateCode"])
	list := s.get(t, statusListOf(t, cred.Raw), "", "")
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	lr, err := credential.Verify(ctx, list.Raw, res)
	require.NoError(t, err, "the test status list is signed by the test issuer")
	require.Equal(t, testID, lr.Issuer)
	revoked, err := credentialCheckStatus(cred.Raw, list.Raw)
	require.NoError(t, err)
	require.True(t, revoked)
	rep = s.verifyCredential(t, cred.Raw)
	requireCheck(t, rep, "status", "revoked")
	require.True(t, rep.Test())
	require.Contains(t, s.verifyPage(t, test), "Test credential — not a real badge</h1>", "revoked or not, the page says test first")
}

// verifyCredential runs the verifier of `badged credential verify` on a credential, fetching documents over HTTP.
func (s *stack) verifyCredential(tb testing.TB, cred []byte) *verifier.Report {
	tb.Helper()
	rep, err := verifier.Verify(context.Background(), cred, verifier.Options{})
	require.NoError(tb, err)
	return rep
}

// requireCheck finds the check named name in rep and requires its result.
func requireCheck(tb testing.TB, rep *verifier.Report, name, result string) {
	tb.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			require.Equal(tb, result, c.Result, "%s: %s", name, c.Detail)
			return
		}
	}
	tb.Fatalf("no %s check in %+v", name, rep.Checks)
}

// pageIn fetches the badge page in lang.
func (s *stack) pageIn(tb testing.TB, assertion, lang string) string {
	tb.Helper()
	r := s.get(tb, "/verify/"+assertion+"?lang="+lang, "", "text/html")
	require.Equal(tb, http.StatusOK, r.Status)
	return string(r.Raw)
}

// object is the body of a public JSON answer (no envelope).
func (r response) object(tb testing.TB) map[string]any {
	tb.Helper()
	require.Equal(tb, http.StatusOK, r.Status, "body: %s", r.Raw)
	require.NotNil(tb, r.Body, "%s", r.Raw)
	return r.Body
}
