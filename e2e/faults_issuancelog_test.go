//go:build faults

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/waitfor"
)

const logKillRecipients = 5

// TestFaults_IssuanceLogKill9BetweenAppendAndCheckpoint: the worker is SIGKILLed after its anchor step appended a
// batch's entries and stored hashes to the organization's issuance log and before it stored the batch's checkpoint
// (the test holds the checkpoint's key, so the worker's insert waits there), then started again. The append and
// the checkpoint are one transaction: the kill leaves no entry behind (no gap), the retried step appends the batch
// once, and every checkpoint is the tree hash of the entries before it (no fork).
func TestFaults_IssuanceLogKill9BetweenAppendAndCheckpoint(t *testing.T) {
	c := newCluster(t, clusterOptions{apis: 1, workers: 1})
	ctx := context.Background()
	tn := c.mustTenant(t, 100)
	org := tn.Org.ID

	// The test takes every checkpoint key the batch could get (its tree sizes 1..n) in a transaction it keeps
	// open: the worker's checkpoint insert waits on it, after its entries and hashes are written.
	_, err := c.DB.Pool.Exec(ctx, "INSERT INTO issuance_logs (org_id) VALUES ($1)", org)
	require.NoError(t, err)
	hold, err := c.DB.Pool.Begin(ctx)
	require.NoError(t, err)
	defer hold.Rollback(ctx) //nolint:errcheck // rolled back below; a no-op then
	_, err = hold.Exec(ctx, `INSERT INTO issuance_log_checkpoints (org_id, tree_size, root_hash, note)
		SELECT $1, n, decode(repeat('00', 32), 'hex'), 'held by the test' FROM generate_series(1, $2::int) AS n`, org, logKillRecipients)
	require.NoError(t, err)

	iss := c.mustIssue(t, "v3", tn.Key, tn.Badge, "logkill-"+uuid.NewString(),
		issuanceBody(t, tn.Program, emailRecipients("logkill", logKillRecipients), ""))
	waiting := "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO issuance_log_checkpoints%'"
	c.waitCount(t, 2*time.Minute, 1, waiting)
	c.Workers[0].Kill(t)
	// The dead worker's transaction never commits: nothing of the batch is in the log.
	require.Zero(t, c.count(t, "SELECT count(*) FROM issuance_log_entries WHERE org_id = $1", org))
	require.NoError(t, hold.Rollback(ctx))
	waitfor.True(t, time.Minute, 50*time.Millisecond, "the dead worker's transaction ended", func() bool {
		return c.count(t, waiting) == 0
	})
	require.Zero(t, c.count(t, "SELECT count(*) FROM issuance_log_entries WHERE org_id = $1", org), "no gap: the killed append left nothing")
	c.Workers[0].Start(t)

	require.Equal(t, "COMPLETED", c.waitIssuance(t, "v3", tn.Key, iss, 5*time.Minute)["processingStatus"])
	var ids []uuid.UUID
	for _, row := range c.assertionRows(t, iss) {
		ids = append(ids, row.ID)
	}
	requireLogIntact(t, c.stack, org, ids)
	require.Equal(t, logKillRecipients, c.count(t, "SELECT count(*) FROM issuance_log_entries WHERE org_id = $1", org))
}
