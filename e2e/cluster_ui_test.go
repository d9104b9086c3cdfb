//go:build faults

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/waitfor"
)

// TestClusterUI_FindsTrouble: `make cluster` serves the Temporal UI against its own frontend, on its port offset;
// its HTTP API answers the operator's query FailedCount > 0 with the issuance that has a failed recipient and not the
// clean one, and the UI link the cluster's processes print (TEMPORAL_UI_URL) is the cluster's UI.
func TestClusterUI_FindsTrouble(t *testing.T) {
	c := newTemporalCluster(t, clusterOptions{apis: 1, workers: 1})
	ui := c.tc.Process("temporal-ui")
	require.NotNil(t, ui, "the cluster runs the Temporal UI")
	require.Equal(t, c.tc.UIURL(), ui.Addr)

	tn := c.mustTenant(t, 20)
	issue := func(rs []recipientJSON) string {
		id := c.mustIssue(t, "v3", tn.Key, tn.Badge, "cui-"+uuid.NewString(), issuanceBody(t, tn.Program, rs, ""))
		require.Equal(t, "COMPLETED", c.waitIssuance(t, "v3", tn.Key, id, 5*time.Minute)["processingStatus"])
		iss, err := c.DB.GetIssuanceAnyOrg(context.Background(), uuid.MustParse(id))
		require.NoError(t, err)
		return iss.WorkflowID
	}
	dup := emailRecipients("cui-dup", 2)
	failed, clean := issue(append(dup, dup[0])), issue(emailRecipients("cui-clean", 2))

	addr := strings.TrimPrefix(ui.Addr, "http://")
	waitfor.NoError(t, time.Minute, 200*time.Millisecond, "the cluster's UI to list the failed issuance", func() error {
		if ids := uiList(t, addr, `FailedCount > 0`); !slices.Contains(ids, failed) {
			return fmt.Errorf("%v lacks %s", ids, failed)
		}
		return nil
	})
	require.NotContains(t, uiList(t, addr, `FailedCount > 0`), clean)
	require.Contains(t, uiList(t, addr, `FailedCodes = "DUPLICATE_ISSUANCE"`), failed)
	// The APIs and workers were given the UI's URL, so the links they print open it.
	env := strings.Join(c.tc.Process("api1").Env, "\n")
	require.Contains(t, env, "TEMPORAL_UI_URL="+c.tc.UIURL())
}
