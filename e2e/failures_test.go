package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/notify/smtptest"
)

// TestIssuance_FailureClasses drives each failure class through the real components and checks the recipient's
// outcome, the credit and that the issuance still completes. The subtests share one stack and run in order;
// the chain goes down last.
func TestIssuance_FailureClasses(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 100)
	issueOne := func(t *testing.T, rs []recipientJSON) (string, []db.Assertion) {
		t.Helper()
		id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "fail-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
		return id, s.assertionRows(t, id)
	}

	t.Run("5xx on RCPT is ISSUED with REJECTED_EMAIL and no refund", func(t *testing.T) {
		s.SMTP.SetFault(smtptest.StageRcpt, smtptest.Fault{Code: 550, Message: "no such mailbox"})
		defer s.SMTP.ClearFaults()
		before := s.credits(t, tn.Org.ID)
		_, rows := issueOne(t, emailRecipients("rejected", 1))
		a := rows[0]
		require.Equal(t, "ISSUED", a.State)
		require.Equal(t, "REJECTED_EMAIL", deref(a.ErrorCode))
		require.NotNil(t, a.CredentialKey, "the credential exists")
		require.NotNil(t, a.AnchorTxHash, "and is anchored")
		require.Equal(t, 200, s.get(t, "/credentials/"+a.ID.String(), "", "").Status)
		_, delivered := messagesByID(t, s.SMTP.Messages())[messageID(a.ID.String())]
		require.False(t, delivered)
		require.Equal(t, before-1, s.credits(t, tn.Org.ID), "an issued credential keeps its credit")
		d := s.getAssertion(t, "v3", tn.Key, a.ID.String())
		require.Equal(t, "ISSUED", d["stateCode"])
		require.Equal(t, "REJECTED_EMAIL", d["errorCode"])
	})

	t.Run("4xx on DATA is retried until delivered once", func(t *testing.T) {
		s.SMTP.SetFault(smtptest.StageData, smtptest.Fault{Code: 451, Message: "try again later"})
		defer s.SMTP.ClearFaults()
		id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "fail-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("deferred", 1), ""))
		// Clear the fault once the first attempt has failed; the remote class keeps retrying about 2 s.
		s.waitSendFailed(t, id)
		s.SMTP.ClearFaults()
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
		a := s.assertionRows(t, id)[0]
		require.Equal(t, "RECEIVED", a.State)
		require.Nil(t, a.ErrorCode)
		n := 0
		for _, m := range s.SMTP.Messages() {
			if m.MessageID == "<"+messageID(a.ID.String())+">" {
				n++
			}
		}
		require.Equal(t, 1, n, "exactly one delivered message")
	})

	t.Run("duplicate recipient and KAKAOTALK without phone fail and are refunded", func(t *testing.T) {
		before := s.credits(t, tn.Org.ID)
		dup := emailRecipients("dup", 1)[0]
		kakao := recipientJSON{Name: "카카오", Email: ptr("kakao-nophone@example.com"), ReceiveType: "KAKAOTALK"}
		_, rows := issueOne(t, []recipientJSON{dup, dup, kakao})
		require.Equal(t, "RECEIVED", rows[0].State)
		require.Equal(t, "FAILED", rows[1].State)
		require.Equal(t, "DUPLICATE_ISSUANCE", deref(rows[1].ErrorCode))
		require.Nil(t, rows[1].CredentialKey, "nothing was signed for the duplicate")
		require.Equal(t, "FAILED", rows[2].State)
		require.Equal(t, "MISSING_INFO", deref(rows[2].ErrorCode))
		require.Equal(t, before-1, s.credits(t, tn.Org.ID), "the two failed recipients are refunded")
		// The same person again, in a later issuance, is a duplicate too.
		_, again := issueOne(t, []recipientJSON{dup})
		require.Equal(t, "DUPLICATE_ISSUANCE", deref(again[0].ErrorCode))
		require.Equal(t, before-1, s.credits(t, tn.Org.ID))
	})

	t.Run("chain down fails with BLOCKCHAIN_RPC_FAILED and the issuance completes", func(t *testing.T) {
		before := s.credits(t, tn.Org.ID)
		anchored := s.count(t, "SELECT count(*) FROM chain_txs")
		require.NoError(t, s.Chain.Close())
		start := time.Now()
		_, rows := issueOne(t, emailRecipients("nochain", 2))
		t.Logf("chain-down issuance finished in %s", time.Since(start))
		for _, a := range rows {
			require.Equal(t, "FAILED", a.State)
			require.Equal(t, "BLOCKCHAIN_RPC_FAILED", deref(a.ErrorCode))
		}
		require.Equal(t, before, s.credits(t, tn.Org.ID), "failed recipients are refunded")
		require.Equal(t, 0, s.count(t, "SELECT count(*) FROM assertions WHERE state = 'PROCESSING'"), "nothing is stuck")
		require.Equal(t, anchored, s.count(t, "SELECT count(*) FROM chain_txs WHERE tx_hash IS NOT NULL"), "no transaction was signed")
	})
}

// TestIssuance_Credits checks PAY054 (nothing written) and test-mode issuances (no credits, not listed, outbox).
func TestIssuance_Credits(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 2)

	r := s.postIssuance(t, "v3", tn.Key, tn.Badge, "short-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("short", 3), ""))
	require.Equal(t, 402, r.Status, "%s", r.Raw)
	require.Equal(t, "PAY054", r.errorCode())
	require.Equal(t, 0, s.count(t, "SELECT count(*) FROM issuances WHERE org_id = $1", tn.Org.ID))
	require.Equal(t, 0, s.count(t, "SELECT count(*) FROM assertions WHERE org_id = $1", tn.Org.ID))
	require.EqualValues(t, 2, s.credits(t, tn.Org.ID))

	// A test key issues more recipients than the credits would allow, spends none and delivers to the outbox.
	id := s.mustIssue(t, "v3", tn.TestKey, tn.Badge, "test-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("testmode", 4), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.TestKey, id, issueTimeout)["processingStatus"])
	require.EqualValues(t, 2, s.credits(t, tn.Org.ID), "test issuances spend no credits")
	for _, key := range []string{tn.TestKey, tn.Key} {
		require.Empty(t, s.listAssertions(t, "v3", key, id), "test assertions are never listed")
	}
	rows := s.assertionRows(t, id)
	require.Len(t, rows, 4)
	for _, a := range rows {
		require.Equal(t, "test", a.Mode)
		require.Equal(t, "RECEIVED", a.State)
		_, err := os.Stat(s.Outbox.Path(messageID(a.ID.String())))
		require.NoError(t, err, "outbox message of %s", a.ID)
	}
	require.Empty(t, s.SMTP.Messages(), "test issuances never reach SMTP")
	require.Zero(t, s.count(t, "SELECT count(*) FROM chain_txs"), "test issuances are not anchored")
}

// TestAssertion_Cancel revokes a credential: REVOKED, the signed status list says so, the page says it was revoked,
// and a FAILED assertion cannot be cancelled.
func TestAssertion_Cancel(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	rs := emailRecipients("cancel", 2)
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "cancel-"+uuid.NewString(), issuanceBody(t, tn.Program, append(rs, rs[0]), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	rows := s.assertionRows(t, id)
	require.Equal(t, "FAILED", rows[2].State, "the repeated recipient fails")
	revoked, kept, failed := rows[0].ID.String(), rows[1].ID.String(), rows[2].ID.String()

	res := s.postJSON(t, "/public/v3/assertions/"+revoked+"/cancel", tn.Key, nil, "")
	require.Equal(t, "REVOKED", res.data(t)["stateCode"])
	require.Equal(t, "REVOKED", s.getAssertion(t, "v3", tn.Key, revoked)["stateCode"])
	again := s.postJSON(t, "/public/v3/assertions/"+revoked+"/cancel", tn.Key, nil, "")
	require.Equal(t, "REVOKED", again.data(t)["stateCode"], "cancelling twice is a safe retry")

	resolver := s.resolver(t, tn.Org.ID.String())
	for _, tc := range []struct {
		id      string
		revoked bool
	}{{revoked, true}, {kept, false}} {
		cred := s.mustVerifiedCredential(t, "/credentials/"+tc.id, resolver, tn.Org.ID.String())
		listURL := statusListOf(t, cred)
		list := s.get(t, listURL, "", "")
		require.Equal(t, 200, list.Status, "%s", list.Raw)
		_, err := credentialVerify(list.Raw, resolver)
		require.NoError(t, err, "the status list credential verifies")
		got, err := credentialCheckStatus(cred, list.Raw)
		require.NoError(t, err)
		require.Equal(t, tc.revoked, got, "status of %s", tc.id)
	}
	require.Contains(t, s.verifyPage(t, revoked), "This badge was revoked on ")
	require.Contains(t, s.verifyPage(t, kept), "This badge is valid</h1>")

	r := s.postJSON(t, "/public/v3/assertions/"+failed+"/cancel", tn.Key, nil, "")
	require.Equal(t, 409, r.Status, "%s", r.Raw)
	require.Equal(t, "AST022", r.errorCode())
}

// TestAssertion_Expiry: a past expiredAt reads as EXPIRED at once in the API; the expiry job stores it.
func TestAssertion_Expiry(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "expiry-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("expiry", 2), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	rows := s.assertionRows(t, id)
	expired := rows[0].ID
	ctx := context.Background()
	_, err := s.DB.Pool.Exec(ctx, "UPDATE assertions SET expired_at = now() - interval '1 second' WHERE id = $1", expired)
	require.NoError(t, err)

	require.Equal(t, "EXPIRED", s.getAssertion(t, "v3", tn.Key, expired.String())["stateCode"], "read state is effective at once")
	require.Equal(t, "RECEIVED", s.getAssertion(t, "v3", tn.Key, rows[1].ID.String())["stateCode"])
	stored, err := s.DB.GetAssertionByID(ctx, expired)
	require.NoError(t, err)
	require.Equal(t, "RECEIVED", stored.State, "stored state waits for the job")
	// The page dates a badge by its signed validUntil (this credential has none), so it is not asked here:
	// TestBadgePage_Browser covers a really expired one.

	n := s.runExpiry(t)
	require.EqualValues(t, 1, n)
	stored, err = s.DB.GetAssertionByID(ctx, expired)
	require.NoError(t, err)
	require.Equal(t, "EXPIRED", stored.State)
	other, err := s.DB.GetAssertionByID(ctx, rows[1].ID)
	require.NoError(t, err)
	require.Equal(t, "RECEIVED", other.State)
	require.EqualValues(t, 0, s.runExpiry(t), "a second run finds nothing")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
