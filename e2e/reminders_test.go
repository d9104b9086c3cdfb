package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/internal/expiry"
	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/workflows"
)

// Expiry reminders on the embedded stack, with a short policy: credentials with about 3 days left, of a badge with
// reminders [7, 1] (set through the API) reminds each recipient once by mail as soon as it is issued, records an
// assertion.expiring event each; a worker's start (EnsureReminderWorkflow) finds the running sweep instead of
// starting a second; a policy edit to [5] reschedules: one more message each, once.
func TestExpiryReminders_EmbeddedStack(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	tn := s.mustTenant(t, 100)
	_, err := s.DB.Pool.Exec(ctx, `INSERT INTO webhook_endpoints (id, org_id, url, secret, events)
		VALUES ($1, $2, 'https://hooks.example.com/r', 'whsec_test', '{assertion.expiring}')`, uuid.New(), tn.Org.ID)
	require.NoError(t, err)
	// Issued about a month ago with a one-month validity: between two and five days left.
	issuedAt := issuedAtLeaving(t, 1, 2*24*time.Hour, 5*24*time.Hour)
	badge := s.postJSON(t, "/public/v3/badges", tn.Key, nil,
		`{"name":"Reminded","description":"Expires soon","categoryCode":"COMPLETION",`+
			`"criteria":[{"category":"COMPLETION","value":"Finish"}],"skills":[{"sourceType":"CUSTOM","skillName":"Go"}],`+
			`"imageId":"`+s.mustUpload(t, tn.Key)+`","programIds":["`+tn.Program+`"],`+
			`"expirationPolicy":{"relativeExpirationMonths":1},"expiryReminders":[1,7]}`).data(t)
	require.Equal(t, []any{float64(7), float64(1)}, badge["expiryReminders"])
	iss := s.mustIssue(t, "v3", tn.Key, badge["id"].(string), "remind-"+uuid.NewString(),
		issuanceBody(t, tn.Program, emailRecipients("remind", 2), issuedAt))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, iss, issueTimeout)["processingStatus"])
	rows := s.assertionRows(t, iss)
	require.NotNil(t, rows[0].ExpiredAt)
	expires := rows[0].ExpiredAt.UTC().Format(time.RFC3339)
	left := time.Until(*rows[0].ExpiredAt)
	require.True(t, left > 2*24*time.Hour && left < 5*24*time.Hour, "%s left", left)

	// One sweep per namespace: its workflow id is fixed. Started here with a short interval (the worker's default is
	// 5 minutes), then ensured twice as two worker starts would: both find the running sweep, so there is one run.
	fast, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflows.ReminderWorkflowID,
		TaskQueue: workflows.TaskQueue}, workflows.RemindExpiring, workflows.RemindInput{Every: 200 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = s.Client.TerminateWorkflow(context.Background(), workflows.ReminderWorkflowID, "", "test over")
	})
	require.NoError(t, temporal.EnsureReminderWorkflow(ctx, s.Client))
	require.NoError(t, temporal.EnsureReminderWorkflow(ctx, s.Client))
	again, err := s.Client.DescribeWorkflowExecution(ctx, workflows.ReminderWorkflowID, "")
	require.NoError(t, err)
	require.Equal(t, fast.GetRunID(), again.WorkflowExecutionInfo.Execution.RunId, "the workers' starts found the running sweep")

	waitReminders := func(days int) {
		t.Helper()
		require.Eventually(t, func() bool {
			got := messagesByID(t, s.SMTP.Messages()) // fails on a message delivered twice
			for _, a := range rows {
				if _, ok := got[notify.ReminderMessageID(a.ID.String(), days, mailDomain)]; !ok {
					return false
				}
			}
			return true
		}, time.Minute, 100*time.Millisecond, "a %d-day reminder for each recipient", days)
	}
	waitReminders(7)
	got := messagesByID(t, s.SMTP.Messages())
	m := got[notify.ReminderMessageID(rows[0].ID.String(), 7, mailDomain)]
	require.Equal(t, []string{*rows[0].RecipientEmail}, m.To)
	require.Contains(t, string(m.Data), "/verify/"+rows[0].ID.String())

	var events []json.RawMessage
	evRows, err := s.DB.Pool.Query(ctx, `SELECT data FROM webhook_events WHERE org_id = $1 AND type = 'assertion.expiring'`, tn.Org.ID)
	require.NoError(t, err)
	for evRows.Next() {
		var d json.RawMessage
		require.NoError(t, evRows.Scan(&d))
		events = append(events, d)
	}
	require.NoError(t, evRows.Err())
	require.Len(t, events, 2)
	var ev map[string]any
	require.NoError(t, json.Unmarshal(events[0], &ev))
	require.EqualValues(t, 7, ev["daysBefore"])
	require.Equal(t, expires, ev["expiredAt"])

	// The policy changes to [5]: not sent yet, so due now (3 days left); the 7-day ones stay as they were.
	res := s.request(t, http.MethodPatch, "/public/v3/badges/"+badge["id"].(string), tn.Key,
		map[string]string{"Content-Type": "application/json"}, strings.NewReader(`{"expiryReminders":[5]}`))
	require.Equal(t, http.StatusOK, res.Status, "%s", res.Raw)
	waitReminders(5)
	require.Eventually(t, func() bool {
		var sent int
		require.NoError(t, s.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM expiry_reminders r JOIN assertions a ON a.id = r.assertion_id
			WHERE a.issuance_id = $1 AND r.state = 'SENT' AND r.attempts = 1`, uuid.MustParse(iss)).Scan(&sent))
		return sent == 4
	}, time.Minute, 100*time.Millisecond)
	reminders := 0
	for id := range messagesByID(t, s.SMTP.Messages()) {
		if strings.Contains(id, ".expiring-") {
			reminders++
		}
	}
	require.Equal(t, 4, reminders, "two reminders each, each once")

	// The progress query the Temporal UI and `badged admin reminders status` show.
	v, err := s.Client.QueryWorkflow(ctx, fast.GetID(), "", workflows.ReminderProgressQuery)
	require.NoError(t, err)
	var p workflows.RemindProgress
	require.NoError(t, v.Get(&p))
	require.Positive(t, p.Rounds)
}

// issuedAtLeaving is an issuedAt (RFC 3339) whose credential, under a relative policy of months, expires between
// min and max from now. The service's rule (internal/expiry: the issue date in Seoul plus the months, at 00:00
// Seoul, a day past the month's end clamped) makes "now minus a month plus three days" leave anywhere from one day
// to a week depending on the day of the month, so the issue date is searched, day by day, with the rule itself.
func issuedAtLeaving(t *testing.T, months int, min, max time.Duration) string {
	t.Helper()
	seoul, err := time.LoadLocation("Asia/Seoul")
	require.NoError(t, err)
	now := time.Now()
	for back := 0; back < 62; back++ {
		at := now.AddDate(0, 0, -back).Truncate(time.Second)
		if left := time.Until(expiry.Relative(at, months, seoul)); left > min && left < max {
			return at.UTC().Format(time.RFC3339)
		}
	}
	t.Fatalf("no issue date in the last 62 days expires within %s..%s under a %d-month policy", min, max, months)
	return ""
}
