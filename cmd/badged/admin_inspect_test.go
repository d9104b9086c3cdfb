package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/temporal/devserver"
	"github.com/badged/badged/workflows"
)

// noTemporal is inspect's Temporal when none answers.
var noTemporal = unreachable{errors.New("dial temporal 127.0.0.1:1: connection refused")}

// `admin issuance inspect` on the in-process Temporal: an issuance still PROCESSING whose workflow was never
// started is said to be so (NOT_FOUND, "never started", no link to a workflow page that does not exist) with the
// command that starts it; run, that command starts it and inspect then shows it RUNNING. An issuance whose start
// was recorded but that Temporal does not have, and a finished one past retention, are told apart; a Temporal that
// does not answer is UNKNOWN, the database's counts printed anyway.
func TestAdminInspect_WorkflowNeverStarted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Options{FrontendAddr: "127.0.0.1:0", SearchAttributes: workflows.SearchAttributeTypes()})
	require.NoError(t, err)
	defer srv.Stop()
	f := mustOpFixture(t, 3, "live", []opRecipient{{State: "PROCESSING", Step: "PENDING"}, {State: "PROCESSING", Step: "PENDING"}})
	id := f.Issuance.ID.String()
	vars := map[string]string{"DATABASE_URL": dbtest.URL(t, f.DB), "LOG_LEVEL": "error", "TEMPORAL_ADDRESS": srv.FrontendAddr(),
		"TEMPORAL_NAMESPACE": srv.Namespace(), "TEMPORAL_UI_URL": "http://127.0.0.1:8233"}
	admin := func(args ...string) map[string]any {
		t.Helper()
		var out, stderr bytes.Buffer
		require.NoError(t, run(ctx, append([]string{"admin", "issuance"}, args...), func(k string) string { return vars[k] }, &out, &stderr),
			"%s", stderr.String())
		var m map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &m), out.String())
		return m
	}

	m := admin("inspect", id)
	wf := m["workflow"].(map[string]any)
	require.Equal(t, "NOT_FOUND", wf["status"])
	require.Contains(t, wf["note"], "has no workflow "+f.Issuance.WorkflowID+": it was never started, so nothing processes this issuance")
	require.Equal(t, "badged admin issuance start "+id, wf["next"])
	require.NotContains(t, m, "temporalUiUrl", "no link to a workflow that does not exist")
	require.Equal(t, map[string]any{"PROCESSING": float64(2)}, m["byState"], "the database's rows as before")

	started := admin("start", id)
	require.Equal(t, true, started["started"])
	m = admin("inspect", id)
	wf = m["workflow"].(map[string]any)
	require.Equal(t, "RUNNING", wf["status"])
	require.NotEmpty(t, wf["runId"])
	require.NotEmpty(t, wf["startTime"])
	require.NotContains(t, wf, "next")
	require.NotContains(t, wf, "note")
	require.Contains(t, m["temporalUiUrl"], "/workflows/issuance%2F"+id)

	// Its start recorded, yet not in this Temporal (another server or namespace, or deleted).
	g := mustOpFixture(t, 3, "live", []opRecipient{{State: "PROCESSING", Step: "PENDING"}})
	require.NoError(t, g.DB.MarkWorkflowStarted(ctx, g.Issuance.ID))
	vars["DATABASE_URL"] = dbtest.URL(t, g.DB)
	wf = admin("inspect", g.Issuance.ID.String())["workflow"].(map[string]any)
	require.Equal(t, "NOT_FOUND", wf["status"])
	require.Contains(t, wf["note"], "though its start was recorded at")
	require.Equal(t, "badged admin issuance start "+g.Issuance.ID.String(), wf["next"])

	// Finished: a workflow gone is its history past retention, nothing to start.
	_, err = g.DB.Pool.Exec(ctx, "UPDATE issuances SET processing_status = 'COMPLETED' WHERE id = $1", g.Issuance.ID)
	require.NoError(t, err)
	wf = admin("inspect", g.Issuance.ID.String())["workflow"].(map[string]any)
	require.Equal(t, "NOT_FOUND", wf["status"])
	require.Contains(t, wf["note"], "the issuance is COMPLETED and its workflow's history has passed the namespace's retention")
	require.NotContains(t, wf, "next")

	// Temporal does not answer: said so, with the database's rows.
	vars["TEMPORAL_ADDRESS"] = "127.0.0.1:1"
	m = admin("inspect", g.Issuance.ID.String())
	wf = m["workflow"].(map[string]any)
	require.Equal(t, "UNKNOWN", wf["status"])
	require.NotEmpty(t, wf["error"])
	require.Equal(t, map[string]any{"PROCESSING": float64(1)}, m["byState"])
}
