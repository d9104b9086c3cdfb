package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"

	"github.com/badged/badged/internal/webhook"
	"github.com/badged/badged/workflows"
)

// TestWebhooks_URLPolicyAtDelivery: the worker applies the URL policy in force at each attempt, to endpoints
// created under a looser one (here the API's: http and private addresses allowed; the worker's: neither).
//   - An http:// endpoint receives nothing in plain text: its delivery fails at once (one attempt, the reason in
//     the delivery log) and the endpoint is disabled, since no delivery to it can pass.
//   - An https:// endpoint on a private address is refused when it connects: its delivery fails at once instead of
//     being retried for a day; the endpoint stays enabled with one failure counted (DNS may change back).
//
// Both delivery workflows complete; neither receiver gets a request.
func TestWebhooks_URLPolicyAtDelivery(t *testing.T) {
	s := newStack(t, stackOptions{workerWebhookURLs: &webhook.URLPolicy{}})
	tn := s.mustTenant(t, 10)
	plain, private := newReceiver(t), newReceiver(t)
	plainID, secret := s.mustWebhook(t, tn.Key, plain.URL())
	plain.setSecret(secret)
	privateURL := strings.Replace(private.URL(), "http://", "https://", 1)
	privateID, secret := s.mustWebhook(t, tn.Key, privateURL)
	private.setSecret(secret)

	s.mustIssue(t, "v3", tn.Key, tn.Badge, "policy-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("policy", 1), ""))
	s.waitDeliveries(t, tn.Key, plainID, 1, "FAILED")
	s.waitDeliveries(t, tn.Key, privateID, 1, "FAILED")

	for endpoint, why := range map[string]string{plainID: "must use https", privateID: "address not allowed: 127.0.0.1"} {
		d := s.deliveries(t, tn.Key, endpoint)[0]
		attempts := d["attempts"].([]any)
		require.Len(t, attempts, 1, "refused once, not retried")
		at := attempts[0].(map[string]any)
		require.Nil(t, at["statusCode"], "no HTTP answer")
		require.Contains(t, at["error"], why)
		// The workflow ends COMPLETED soon after the activity finished the delivery: the refusal is in its
		// activity's failure, not a failed or stuck run.
		wfID := workflows.WebhookWorkflowID(uuid.MustParse(d["id"].(string)))
		var status enums.WorkflowExecutionStatus
		require.Eventually(t, func() bool {
			desc, err := s.Client.DescribeWorkflowExecution(context.Background(), wfID, "")
			require.NoError(t, err)
			status = desc.GetWorkflowExecutionInfo().GetStatus()
			return status != enums.WORKFLOW_EXECUTION_STATUS_RUNNING
		}, time.Minute, 20*time.Millisecond)
		require.Equal(t, enums.WORKFLOW_EXECUTION_STATUS_COMPLETED, status)
	}

	endpoints := map[string]map[string]any{}
	require.Eventually(t, func() bool {
		for _, it := range s.get(t, "/public/v3/webhooks", tn.Key, "").data(t)["items"].([]any) {
			e := it.(map[string]any)
			endpoints[e["id"].(string)] = e
		}
		return endpoints[plainID]["disabled"] == true
	}, time.Minute, 20*time.Millisecond)
	require.Contains(t, endpoints[plainID]["disabledReason"], "the URL is no longer allowed")
	require.Contains(t, endpoints[plainID]["disabledReason"], "must use https")
	require.Equal(t, false, endpoints[privateID]["disabled"])
	require.EqualValues(t, 1, endpoints[privateID]["consecutiveFailures"])

	for name, r := range map[string]*receiver{"in plain text": plain, "to the private address": private} {
		r.mu.Lock()
		require.Empty(t, r.requests, "nothing was sent %s", name)
		r.mu.Unlock()
	}
	require.Zero(t, s.count(t, `SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING'`))
}
