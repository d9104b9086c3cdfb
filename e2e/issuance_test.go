package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/badged/badged/workflows"

	"github.com/badged/badged/internal/waitfor"
)

// issueTimeout bounds one small issuance end to end.
const issueTimeout = 3 * time.Minute

// TestIssuance_HappyPathV3 issues to a few recipients and checks every artifact a recipient or verifier sees: the
// mail (exactly one each), the anchor (one transaction for all, a proof each), the credential's proof, the baked
// image, the PDF and the verification page.
func TestIssuance_HappyPathV3(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 100)
	const n = 5
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "happy-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("happy", n), ""))
	iss := s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)
	require.Equal(t, "COMPLETED", iss["processingStatus"])
	require.EqualValues(t, n, iss["assertionCount"])
	require.EqualValues(t, 100-n, s.credits(t, tn.Org.ID), "one credit per recipient")

	list := s.listAssertions(t, "v3", tn.Key, id)
	require.Len(t, list, n)
	for _, a := range list {
		require.Equal(t, "RECEIVED", a["stateCode"], "%v", a)
		require.Nil(t, a["errorCode"], "%v", a)
	}

	// Exactly one mail per recipient, over STARTTLS with AUTH, with the assertion's Message-ID.
	mails := messagesByID(t, s.SMTP.Messages())
	require.Len(t, mails, n)
	rows := s.assertionRows(t, id)
	for _, r := range rows {
		m, ok := mails[messageID(r.ID.String())]
		require.True(t, ok, "no mail for assertion %s", r.ID)
		require.Equal(t, []string{*r.RecipientEmail}, m.To)
		require.True(t, m.TLS)
		require.Equal(t, smtpUser, m.AuthUser)
	}

	// The credentials arrived together: one chain transaction for all of them, mined, carrying the root of exactly
	// their digests, each with its proof, and nothing else sent by the sender.
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM chain_txs WHERE block_number IS NOT NULL AND anchor_key LIKE 'anchor/%'"))
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM chain_txs"))
	require.Equal(t, 1, s.count(t, "SELECT count(DISTINCT anchor_tx_hash) FROM assertions WHERE issuance_id = $1", uuid.MustParse(id)))
	require.EqualValues(t, 1, s.senderNonce(t), "sender nonce = number of anchors")
	s.requireAnchorProofs(t, tn.Org.ID.String(), rows)
	requireAnchorRoots(t, s.DB, s.Chain.URL())

	// Every credential verifies, its baked image holds it byte for byte, the PDF and the page are served.
	res := s.resolver(t, tn.Org.ID.String())
	for _, r := range rows {
		d := s.getAssertion(t, "v3", tn.Key, r.ID.String())
		credURL, _ := d["credentialUrl"].(string)
		imgURL, _ := d["openbadgeImageUrl"].(string)
		require.Equal(t, s.BaseURL+"/credentials/"+r.ID.String(), credURL)
		require.Equal(t, s.BaseURL+"/credentials/"+r.ID.String()+"/image", imgURL)
		cred := s.mustVerifiedCredential(t, credURL, res, tn.Org.ID.String())
		s.requireBakedImage(t, imgURL, cred)
		pdf := s.get(t, "/public/v3/assertions/"+r.ID.String()+"/pdf", tn.Key, "")
		require.Equal(t, 200, pdf.Status, "%s", pdf.Raw)
		require.True(t, strings.HasPrefix(string(pdf.Raw), "%PDF"), "not a PDF")
		page := s.verifyPage(t, r.ID.String())
		require.Contains(t, page, "This badge is valid</h1>")
		require.NotContains(t, page, "could not be verified")
	}
	// A browser opening credentialUrl gets the same page.
	browser := s.get(t, "/credentials/"+rows[0].ID.String(), "", "text/html,application/xhtml+xml")
	require.Contains(t, string(browser.Raw), "This badge is valid</h1>")
}

// v2LocalTime is v2's datetime: local time in the service zone, no offset.
var v2LocalTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$`)

// TestIssuance_V2 runs a v2 issuance: recipients end ISSUED and datetimes carry no offset.
func TestIssuance_V2(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 10)
	const n = 3
	id := s.mustIssue(t, "v2", tn.Key, tn.Badge, "v2-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("v2", n), ""))
	iss := s.waitIssuance(t, "v2", tn.Key, id, issueTimeout)
	require.Equal(t, "COMPLETED", iss["processingStatus"])
	for _, f := range []string{"createdAt", "updatedAt"} {
		require.Regexp(t, v2LocalTime, iss[f], "issuance %s", f)
	}
	list := s.listAssertions(t, "v2", tn.Key, id)
	require.Len(t, list, n)
	res := s.resolver(t, tn.Org.ID.String())
	for _, a := range list {
		require.Equal(t, "ISSUED", a["stateCode"], "%v", a)
		require.Nil(t, a["errorCode"])
		require.Regexp(t, v2LocalTime, a["createdAt"])
		require.NotContains(t, a, "issuedAt", "v2 has no issuedAt")
		aid := a["id"].(string)
		d := s.getAssertion(t, "v2", tn.Key, aid)
		require.Equal(t, s.BaseURL+"/verify/"+aid, d["credentialUrl"], "v2 credentialUrl is the verification page")
		require.Contains(t, s.verifyPage(t, aid), "This badge is valid</h1>")
		s.mustVerifiedCredential(t, "/credentials/"+aid, res, tn.Org.ID.String())
	}
	require.Len(t, messagesByID(t, s.SMTP.Messages()), n, "v2 recipients are notified too")
}

// TestIssuance_Idempotency checks replays: same key and body answer the same issuance without a second workflow
// or mail, another body is ISS057, v3 compares the normalized request, and 20 concurrent identical requests
// make one issuance, one workflow and one debit.
func TestIssuance_Idempotency(t *testing.T) {
	s := newStack(t)
	tn := s.mustTenant(t, 1000)
	t.Run("replay", func(t *testing.T) {
		before := s.credits(t, tn.Org.ID)
		key := "replay-" + uuid.NewString()
		body := issuanceBody(t, tn.Program, emailRecipients("replay", 2), "")
		id := s.mustIssue(t, "v3", tn.Key, tn.Badge, key, body)
		// A replay while the workflow runs, and one after it finished.
		require.Equal(t, id, s.postIssuance(t, "v3", tn.Key, tn.Badge, key, body).data(t)["id"])
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
		mails := len(s.SMTP.Messages())
		again := s.postIssuance(t, "v3", tn.Key, tn.Badge, key, body).data(t)
		require.Equal(t, id, again["id"])
		require.Equal(t, "COMPLETED", again["processingStatus"])
		// The replay started no run (countWorkflows waits for the latest run to be listed), and the one run had
		// finished before the replay: no mail can come after this count.
		require.Equal(t, 1, s.countWorkflows(t, id))
		require.Len(t, s.SMTP.Messages(), mails, "a replay sends no mail")
		require.Equal(t, before-2, s.credits(t, tn.Org.ID))

		other := s.postIssuance(t, "v3", tn.Key, tn.Badge, key, issuanceBody(t, tn.Program, emailRecipients("other", 2), ""))
		require.Equal(t, 409, other.Status, "%s", other.Raw)
		require.Equal(t, "ISS057", other.errorCode())
		require.Equal(t, before-2, s.credits(t, tn.Org.ID))
	})

	t.Run("v3 normalization", func(t *testing.T) {
		key := "norm-" + uuid.NewString()
		at := time.Now().Add(-time.Hour).Truncate(time.Second)
		a := []recipientJSON{{Name: "Kim", Email: ptr("  Kim.Norm@Example.COM "), ReceiveType: "EMAIL"}}
		b := []recipientJSON{{Name: "Kim", Email: ptr("kim.norm@example.com"), ReceiveType: "EMAIL"}}
		id := s.mustIssue(t, "v3", tn.Key, tn.Badge, key, issuanceBody(t, tn.Program, a, at.In(time.FixedZone("KST", 9*3600)).Format(time.RFC3339)))
		same := s.postIssuance(t, "v3", tn.Key, tn.Badge, key, issuanceBody(t, tn.Program, b, at.UTC().Format(time.RFC3339)))
		require.Equal(t, id, same.data(t)["id"], "the normalized request is the same request")
		s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)
		d := s.listAssertions(t, "v3", tn.Key, id)
		require.Len(t, d, 1)
		require.Equal(t, at.UTC().Format(time.RFC3339), d[0]["issuedAt"])
		require.Equal(t, "kim.norm@example.com", d[0]["recipient"].(map[string]any)["email"])
	})

	t.Run("20 concurrent identical requests", func(t *testing.T) {
		before := s.credits(t, tn.Org.ID)
		key := "burst-" + uuid.NewString()
		body := issuanceBody(t, tn.Program, emailRecipients("burst", 3), "")
		const clients = 20
		results := make(chan postResult, clients)
		start := make(chan struct{})
		for range clients {
			go func() {
				<-start
				results <- s.postIssuanceNoFail(key, tn, body)
			}()
		}
		close(start)
		ids := map[string]int{}
		for range clients {
			r := <-results
			require.Equal(t, 200, r.status, "%s", r.raw)
			ids[r.id]++
		}
		require.Len(t, ids, 1, "every request answers the same issuance: %v", ids)
		var id string
		for k := range ids {
			id = k
		}
		require.Equal(t, 1, s.count(t, "SELECT count(*) FROM issuances WHERE org_id = $1 AND idempotency_key = $2", tn.Org.ID, key))
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
		require.Equal(t, 1, s.countWorkflows(t, id), "one workflow for the issuance")
		require.Equal(t, before-3, s.credits(t, tn.Org.ID), "credits debited once")
		require.Equal(t, 3, s.count(t, "SELECT count(*) FROM assertions WHERE issuance_id = $1", uuid.MustParse(id)))
		for _, r := range s.assertionRows(t, id) {
			require.Equal(t, "RECEIVED", r.State)
		}
	})
}

// postResult is what one concurrent client saw.
type postResult struct {
	status int
	id     string
	raw    string
}

// postIssuanceNoFail posts from a goroutine: it reports instead of failing the test.
func (s *stack) postIssuanceNoFail(idemKey string, tn tenant, body string) postResult {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
		s.BaseURL+"/public/v3/badges/"+tn.Badge+"/issuances", strings.NewReader(body))
	if err != nil {
		return postResult{raw: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", tn.Key)
	req.Header.Set("Idempotency-Key", idemKey)
	res, err := httpClient.Do(req)
	if err != nil {
		return postResult{raw: err.Error()}
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var b struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(raw, &b)
	return postResult{status: res.StatusCode, id: b.Data.ID, raw: string(raw)}
}

// countWorkflows counts the IssueBadge executions (runs) that carry the issuance's IssuanceId search attribute
// (its batches carry it too, and are not counted). Visibility is eventually consistent, so it waits until the
// listing holds the latest run of the issuance's workflow id, as Temporal itself reports it: every earlier run, and
// any run of another id started before it, is listed by then.
func (s *stack) countWorkflows(tb testing.TB, issuance string) int {
	tb.Helper()
	ctx := context.Background()
	var workflowID string
	require.NoError(tb, s.DB.Pool.QueryRow(ctx, "SELECT workflow_id FROM issuances WHERE id = $1", issuance).Scan(&workflowID))
	desc, err := s.Client.DescribeWorkflowExecution(ctx, workflowID, "")
	require.NoError(tb, err, "the issuance's workflow")
	latest := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	query := workflows.IssuanceIDKey.GetName() + ` = "` + issuance + `" AND WorkflowType = "IssueBadge"`
	runs := 0
	waitfor.True(tb, 30*time.Second, 100*time.Millisecond, "run "+latest+" of issuance "+issuance+" listed", func() bool {
		res, err := s.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, PageSize: 100})
		require.NoError(tb, err)
		runs = len(res.Executions)
		for _, e := range res.Executions {
			if e.GetExecution().GetRunId() == latest {
				return true
			}
		}
		return false
	})
	return runs
}
