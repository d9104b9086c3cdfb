package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/badged/badged/internal/issuer"
	"github.com/badged/badged/workflows"
)

// issued is an issuance a cluster test posted.
type issued struct {
	ID         string
	Key        string
	Recipients int
}

// deliveries is what the SMTP server accepted: per recipient address, the Message-IDs it received, and the raw
// number of messages.
type deliveries struct {
	byRecipient map[string]map[string]int // address -> Message-ID -> times accepted
	total       int
}

func (c *cluster) deliveries(tb testing.TB) deliveries {
	d := deliveries{byRecipient: map[string]map[string]int{}}
	for _, m := range c.messages(tb) {
		d.total++
		for _, to := range m.To {
			if d.byRecipient[to] == nil {
				d.byRecipient[to] = map[string]int{}
			}
			d.byRecipient[to][strings.Trim(m.MessageID, "<>")]++
		}
	}
	return d
}

// exactlyOnce is what a cluster run must end with, whatever happened on the way: every issuance COMPLETED and
// no workflow of it still running; every recipient RECEIVED; one credential and one baked image per recipient in
// the object store and nothing else; every recipient anchored in a mined transaction whose Merkle root is exactly
// that of the credentials assigned to it, with exactly as many transactions sent as anchors recorded; and one
// Message-ID per recipient. It returns how many messages were accepted more than once under the same
// Message-ID (a resend the recipient's mail system folds into one; see README "Fault tests").
func (c *cluster) exactlyOnce(tb testing.TB, runs []issued) (redelivered int) {
	tb.Helper()
	objects := c.objectKeys(tb)
	mail := c.deliveries(tb)
	var issuances []uuid.UUID
	for _, r := range runs {
		iss := c.get(tb, "/public/v3/issuances/"+r.ID, r.Key, "").data(tb)
		require.Equal(tb, "COMPLETED", iss["processingStatus"], "issuance %s", r.ID)
		require.Zero(tb, c.runningWorkflows(tb, r.ID), "issuance %s has a running workflow", r.ID)

		id := uuid.MustParse(r.ID)
		require.Equal(tb, r.Recipients, c.count(tb, "SELECT count(*) FROM assertions WHERE issuance_id = $1", id))
		require.Equal(tb, r.Recipients, c.count(tb,
			"SELECT count(*) FROM assertions WHERE issuance_id = $1 AND state = 'RECEIVED' AND step = 'NOTIFIED'", id),
			"issuance %s: every recipient RECEIVED", r.ID)
		issuances = append(issuances, id)

		for _, a := range c.assertionRows(tb, r.ID) {
			aid := a.ID.String()
			require.True(tb, objects[issuer.CredentialKey(aid)], "credential of %s stored", aid)
			require.True(tb, objects[issuer.BakedKey(aid, "image/png")], "baked image of %s stored", aid)
			require.NotNil(tb, a.AnchorTxHash, "assertion %s anchored", aid)
			ids := mail.byRecipient[*a.RecipientEmail]
			require.Len(tb, ids, 1, "recipient %s: one Message-ID", *a.RecipientEmail)
			n, ok := ids[messageID(aid)]
			require.True(tb, ok, "recipient %s got the Message-ID of assertion %s", *a.RecipientEmail, aid)
			redelivered += n - 1
		}
	}
	// Only what was issued is in the store: two objects per recipient, plus the badge images (media/…).
	credentials := 0
	for k := range objects {
		if strings.HasPrefix(k, "credentials/") || strings.HasPrefix(k, "baked/") {
			credentials++
		}
	}
	total := 0
	for _, r := range runs {
		total += r.Recipients
	}
	require.Equal(tb, 2*total, credentials, "one credential and one baked image per recipient, no strays")

	// Every transaction the sender ever sent is a recorded anchor, every recorded anchor was mined, and each
	// carries the root of exactly the credentials assigned to it.
	wantTxs := c.count(tb, "SELECT count(DISTINCT anchor_tx_hash) FROM assertions WHERE issuance_id = ANY($1)", issuances)
	require.EqualValues(tb, wantTxs, nonceAt(tb, c.chainURL, c.chainSender), "transactions sent = anchors recorded")
	require.Equal(tb, wantTxs, c.count(tb, "SELECT count(*) FROM chain_txs WHERE block_number IS NOT NULL"))
	requireAnchorRoots(tb, c.DB, c.chainURL)
	require.Equal(tb, total+redelivered, mail.total, "messages accepted")
	return redelivered
}

// objectKeys lists every key in the cluster's bucket.
func (c *cluster) objectKeys(tb testing.TB) map[string]bool {
	tb.Helper()
	keys := map[string]bool{}
	p := s3.NewListObjectsV2Paginator(c.S3.Client(), &s3.ListObjectsV2Input{Bucket: aws.String(c.S3.Bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		require.NoError(tb, err)
		for _, o := range page.Contents {
			keys[aws.ToString(o.Key)] = true
		}
	}
	return keys
}

// runningWorkflows counts the workflows of an issuance (parent, batches, re-drives) that are still running.
func (c *cluster) runningWorkflows(tb testing.TB, issuance string) int {
	tb.Helper()
	res, err := c.Client.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
		Query: workflows.IssuanceIDKey.GetName() + ` = "` + issuance + `" AND ExecutionStatus = "Running"`})
	require.NoError(tb, err)
	return int(res.Count)
}
