//go:build faults

package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/waitfor"
)

const chainKillRecipients = 200

// TestFaults_ChainNodeKill9 runs the multi-process stack (an API and a worker process, the chain node a process of
// its own) and SIGKILLs the chain node while an issuance's anchor transaction is stored and not yet seen mined,
// then starts it again on its data. The issuance must complete with one anchor per recipient, every transaction
// the sender sent recorded and mined, and every other exactly-once guarantee of the cluster runs.
func TestFaults_ChainNodeKill9(t *testing.T) {
	c := newCluster(t, clusterOptions{apis: 1, workers: 1, chainProcess: true})
	tn := c.mustTenant(t, 2*chainKillRecipients)
	start := time.Now()
	id := c.mustIssue(t, "v3", tn.Key, tn.Badge, "chainkill-"+uuid.NewString(),
		issuanceBody(t, tn.Program, emailRecipients("chainkill", chainKillRecipients), ""))
	issuance := uuid.MustParse(id)

	waitfor.True(t, 5*time.Minute, 10*time.Millisecond, "an anchor transaction stored",
		func() bool { return c.count(t, anchorSentQuery, issuance) > 0 })
	recorded := c.count(t, anchorSentQuery+" AND c.block_number IS NOT NULL", issuance)
	t0 := time.Now()
	c.ChainNode.Kill(t)
	c.ChainNode.Start(t)
	restart := time.Since(t0)

	require.Equal(t, "COMPLETED", c.waitIssuance(t, "v3", tn.Key, id, 10*time.Minute)["processingStatus"])
	elapsed := time.Since(start)
	redelivered := c.exactlyOnce(t, []issued{{ID: id, Key: tn.Key, Recipients: chainKillRecipients}})
	require.Equal(t, chainKillRecipients, c.count(t,
		"SELECT count(*) FROM assertions a JOIN chain_txs x ON x.anchor_key = a.anchor_key AND x.tx_hash = a.anchor_tx_hash "+
			"WHERE a.issuance_id = $1 AND x.block_number IS NOT NULL", issuance), "one mined anchor per recipient")

	w := c.Workers[0]
	t.Logf("chain node kill -9 during anchoring, %d recipients: COMPLETED %s after the POST", chainKillRecipients,
		elapsed.Round(100*time.Millisecond))
	t.Logf("  killed at %.1fs with the anchor stored (%d seen mined); node back in %s; %s", t0.Sub(start).Seconds(),
		recorded, restart.Round(100*time.Millisecond), lastChainStart(t, c.ChainNode))
	t.Logf("  %s; worker gap repairs: %.0f resent, %.0f behind; anchor retries %.0f; messages re-sent %d",
		c.anchorSummary(t), w.scrape(t, "badged_chain_gap_repairs_total", `kind="resent"`),
		w.scrape(t, "badged_chain_gap_repairs_total", `kind="behind"`),
		w.scrape(t, "badged_activity_attempts_total", `step="anchor"`, `outcome="retry"`), redelivered)
}

// lastChainStart is the chain node's start-up line of its last start: what its journal gave back.
func lastChainStart(tb testing.TB, p *proc) string {
	tb.Helper()
	data, err := os.ReadFile(p.log)
	require.NoError(tb, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return lines[len(lines)-1]
}
