package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/waitfor"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/workflows"
)

// TestRedriveUpdate_ThroughTheTemporalUI: an issuance whose recipients failed on a chain outage stays open after
// its pipeline (Stage awaiting-redrive, found by the operator's saved query); once the chain is back, the redrive
// Update sent as the Temporal UI sends it (POST on the UI server's HTTP API, with its CSRF token) re-drives both
// recipients under run 1's id, debits their credits once, and the workflow completes with them issued. The
// workflow closed, `badged admin issuance redrive`'s path (temporal.Redriver) finds nothing left to re-drive.
func TestRedriveUpdate_ThroughTheTemporalUI(t *testing.T) {
	chainDir := t.TempDir()
	s := newStack(t, stackOptions{temporalUI: true, chainDir: chainDir, redriveWindow: time.Hour})
	ctx := context.Background()
	tn := s.mustTenant(t, 10)
	addr := strings.TrimPrefix(s.Chain.URL(), "http://")
	require.NoError(t, s.Chain.Close())
	id := s.mustIssue(t, "v3", tn.Key, tn.Badge, "redrive-ui-"+uuid.NewString(),
		issuanceBody(t, tn.Program, emailRecipients("redrive-ui", 2), ""))
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
	rows := s.assertionRows(t, id)
	require.Equal(t, []string{"FAILED", "FAILED"}, states(rows))
	require.Equal(t, "BLOCKCHAIN_RPC_FAILED", deref(rows[0].ErrorCode))
	wfID := s.workflowIDOf(t, id)

	ui := s.Temporal.UIAddr()
	q := `Stage = "awaiting-redrive" AND FailedCodes = "BLOCKCHAIN_RPC_FAILED"`
	waitfor.NoError(t, 30*time.Second, 100*time.Millisecond, "the UI to list the issuance under "+q, func() error {
		if ids := uiList(t, ui, q); !slices.Contains(ids, wfID) {
			return fmt.Errorf("%v lacks %s", ids, wfID)
		}
		return nil
	})
	credits := func() int64 {
		org, err := s.DB.GetOrganization(ctx, tn.Org.ID)
		require.NoError(t, err)
		return org.Credits
	}
	before := credits()

	s.startChain(t, addr, chainDir)
	res := uiUpdate(t, ui, wfID, workflows.RedriveUpdate, "ui-redrive-"+uuid.NewString())
	require.Equal(t, 1, res.Run)
	require.True(t, res.Created)
	require.True(t, res.Started)
	require.Equal(t, workflows.RedriveWorkflowID(wfID, 1), res.WorkflowID)
	require.ElementsMatch(t, []string{rows[0].ID.String(), rows[1].ID.String()}, res.AssertionIDs)
	require.Equal(t, 2, res.CreditsDebited)

	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var p workflows.Progress
	require.NoError(t, s.Client.GetWorkflow(wctx, wfID, "").Get(wctx, &p), "the issuance workflow completes once nothing is left to re-drive")
	require.Equal(t, map[string]int{"RECEIVED": 2}, p.ByState)
	require.Equal(t, []string{"RECEIVED", "RECEIVED"}, states(s.assertionRows(t, id)))
	require.Equal(t, before-2, credits(), "debited once for the two recipients")
	require.Equal(t, 1, s.count(t, "SELECT count(*) FROM issuance_redrive_runs WHERE issuance_id = $1", uuid.MustParse(id)))

	r := temporal.Redriver{DB: s.DB, Policy: testPolicy(t), Client: s.Client,
		Start: temporal.Starter{Client: s.Client, DB: s.DB}.StartRedrive}
	out, err := r.Redrive(ctx, uuid.MustParse(id))
	require.NoError(t, err)
	require.Zero(t, out.Run, "nothing left to re-drive")
}

// uiUpdate sends Update name to workflow wfID through the Temporal UI server's HTTP API, as the UI's "Send an
// Update" does (its CSRF cookie echoed in X-CSRF-Token), waits for it to complete and returns its answer.
func uiUpdate(t *testing.T, uiAddr, wfID, name, updateID string) temporal.RedriveResult {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &http.Client{Jar: jar, Timeout: time.Minute}
	base := "http://" + uiAddr
	resp, err := c.Get(base + "/api/v1/settings")
	require.NoError(t, err)
	resp.Body.Close()
	u, err := url.Parse(base)
	require.NoError(t, err)
	var token string
	for _, ck := range jar.Cookies(u) {
		if ck.Name == "_csrf" {
			token = ck.Value
		}
	}
	require.NotEmpty(t, token, "the UI server sets its CSRF cookie")

	body := fmt.Sprintf(`{"request":{"meta":{"updateId":%q},"input":{"name":%q}},`+
		`"waitPolicy":{"lifecycleStage":"UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED"}}`, updateID, name)
	target := base + "/api/v1/namespaces/default/workflows/" + url.PathEscape(wfID) + "/update/" + url.PathEscape(name)
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", token)
	resp, err = c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "POST %s: %s", target, raw)
	var out struct {
		Outcome struct {
			Success struct {
				Payloads []struct {
					Data string `json:"data"`
				} `json:"payloads"`
			} `json:"success"`
			Failure json.RawMessage `json:"failure"`
		} `json:"outcome"`
	}
	require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
	require.Empty(t, out.Outcome.Failure, "the Update failed: %s", raw)
	require.Len(t, out.Outcome.Success.Payloads, 1, "%s", raw)
	data, err := base64.StdEncoding.DecodeString(out.Outcome.Success.Payloads[0].Data)
	require.NoError(t, err)
	var res temporal.RedriveResult
	require.NoError(t, json.Unmarshal(data, &res), "%s", data)
	return res
}
