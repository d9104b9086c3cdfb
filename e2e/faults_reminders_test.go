//go:build faults

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/internal/notify"
	"github.com/badged/badged/internal/notify/smtptest"
	"github.com/badged/badged/workflows"

	"github.com/badged/badged/internal/waitfor"
)

const reminderKillRecipients = 5

// TestFaults_ReminderKill9BetweenTimerAndMail: a worker process is SIGKILLed after the reminder loop's timer fired
// and its round claimed the due reminders, while the messages are on their way (the SMTP server holds every MAIL
// FROM, so none is accepted), and started again. The dead attempt times out on its heartbeat; Temporal retries
// the round on the new process, which takes the dead attempt's claims at once (same lease owner: the round's run
// and activity id) and sends each reminder exactly once.
func TestFaults_ReminderKill9BetweenTimerAndMail(t *testing.T) {
	c := newCluster(t, clusterOptions{apis: 1, workers: 1})
	ctx := context.Background()
	tn := c.mustTenant(t, 100)

	// Credentials with about three days left, of a badge reminding 7 days before: due as soon as they are issued.
	issuedAt := issuedAtLeaving(t, 1, 2*24*time.Hour, 5*24*time.Hour)
	badge := c.postJSON(t, "/public/v3/badges", tn.Key, nil,
		`{"name":"Reminded","description":"Expires soon","categoryCode":"COMPLETION",`+
			`"criteria":[{"category":"COMPLETION","value":"Finish"}],"skills":[{"sourceType":"CUSTOM","skillName":"Go"}],`+
			`"imageId":"`+c.mustUpload(t, tn.Key)+`","programIds":["`+tn.Program+`"],`+
			`"expirationPolicy":{"relativeExpirationMonths":1},"expiryReminders":[7]}`).data(t)
	// The worker's own reminder loop (every 5 minutes) ran its first round at start, before this issuance: it is
	// replaced by one with a 1-second timer once the credentials exist.
	require.NoError(t, c.Client.TerminateWorkflow(ctx, workflows.ReminderWorkflowID, "", "the test runs a fast loop"))
	iss := c.mustIssue(t, "v3", tn.Key, badge["id"].(string), "remindkill-"+uuid.NewString(),
		issuanceBody(t, tn.Program, emailRecipients("remindkill", reminderKillRecipients), issuedAt))
	require.Equal(t, "COMPLETED", c.waitIssuance(t, "v3", tn.Key, iss, issueTimeout)["processingStatus"])
	rows := c.assertionRows(t, iss)
	require.Len(t, rows, reminderKillRecipients)
	issueMails := len(c.messages(t))

	// Every later MAIL FROM waits: the reminders leave the worker and are not accepted.
	c.SMTP.SetFault(smtptest.StageMail, smtptest.Fault{Hold: true})
	_, err := c.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflows.ReminderWorkflowID,
		TaskQueue: workflows.TaskQueue}, workflows.RemindExpiring, workflows.RemindInput{Every: time.Second})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = c.Client.TerminateWorkflow(context.Background(), workflows.ReminderWorkflowID, "", "test over")
	})
	claimed := "SELECT count(*) FROM expiry_reminders r JOIN assertions a ON a.id = r.assertion_id " +
		"WHERE a.issuance_id = $1 AND r.state = 'CLAIMED' AND r.claimed_until > now()"
	c.waitCount(t, time.Minute, reminderKillRecipients, claimed, uuid.MustParse(iss))
	waitfor.True(t, time.Minute, 20*time.Millisecond, "a reminder at the SMTP server", func() bool { return c.SMTP.Held() > 0 })
	c.Workers[0].Kill(t)
	require.Len(t, c.messages(t), issueMails, "no reminder was accepted before the kill")
	c.SMTP.ClearFaults()
	killedAt := time.Now()
	c.Workers[0].Start(t)

	// The round is retried after its heartbeat timeout (1 minute) and its retry interval.
	sent := "SELECT count(*) FROM expiry_reminders r JOIN assertions a ON a.id = r.assertion_id " +
		"WHERE a.issuance_id = $1 AND r.state = 'SENT'"
	c.waitCount(t, 3*time.Minute, reminderKillRecipients, sent, uuid.MustParse(iss))
	got := messagesByID(t, c.messages(t)) // fails on a message delivered twice
	for _, a := range rows {
		m, ok := got[notify.ReminderMessageID(a.ID.String(), 7, mailDomain)]
		require.True(t, ok, "the 7-day reminder of %s", a.ID)
		require.Equal(t, []string{*a.RecipientEmail}, m.To)
	}
	require.Equal(t, reminderKillRecipients, c.count(t, "SELECT count(*) FROM expiry_reminders r JOIN assertions a "+
		"ON a.id = r.assertion_id WHERE a.issuance_id = $1 AND r.state = 'SENT' AND r.attempts = 1", uuid.MustParse(iss)),
		"each sent by its first recorded attempt")
	t.Logf("reminders: %d claimed, worker SIGKILLed with them held at MAIL FROM, all sent once %s after the restart",
		reminderKillRecipients, time.Since(killedAt).Round(100*time.Millisecond))
}
