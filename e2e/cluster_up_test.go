//go:build faults

package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestClusterUp_StartsAgainWhatDied is `make cluster` run again on a cluster some of whose processes died: Up
// starts the dead ones again (a Temporal service, an API, a worker and the SMTP server, SIGKILLed as a crash or an
// OOM kill would), keeps every process that runs with its pid, and the cluster then issues as before.
func TestClusterUp_StartsAgainWhatDied(t *testing.T) {
	c := newTemporalCluster(t, clusterOptions{apis: 1, workers: 1})
	tn := c.mustTenant(t, 20)
	first := c.mustIssue(t, "v3", tn.Key, tn.Badge, "up-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("upa", 5), ""))
	require.Equal(t, "COMPLETED", c.waitIssuance(t, "v3", tn.Key, first, 5*time.Minute)["processingStatus"])

	pids := map[string]int{}
	for _, p := range c.tc.Processes() {
		pids[p.Name] = p.Pid()
		require.NotZero(t, pids[p.Name], p.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	died := []string{"temporal-matching", "api1", "worker1", "smtp"}
	for _, name := range died {
		require.NoError(t, c.tc.Process(name).Kill(ctx), name)
	}

	require.NoError(t, c.tc.Up(ctx), "up again")
	for _, p := range c.tc.Processes() {
		require.NotZero(t, p.Pid(), "%s runs after up", p.Name)
		if slices.Contains(died, p.Name) {
			require.NotEqual(t, pids[p.Name], p.Pid(), "%s was started again", p.Name)
		} else {
			require.Equal(t, pids[p.Name], p.Pid(), "%s was kept", p.Name)
		}
	}
	second := c.mustIssue(t, "v3", tn.Key, tn.Badge, "up-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("upb", 5), ""))
	require.Equal(t, "COMPLETED", c.waitIssuance(t, "v3", tn.Key, second, 5*time.Minute)["processingStatus"])
	c.exactlyOnce(t, []issued{{ID: first, Key: tn.Key, Recipients: 5}, {ID: second, Key: tn.Key, Recipients: 5}})
	require.Equal(t, 10, c.count(t, fmt.Sprintf("SELECT count(*) FROM assertions WHERE state = 'RECEIVED' AND org_id = '%s'", tn.Org.ID)))
}
