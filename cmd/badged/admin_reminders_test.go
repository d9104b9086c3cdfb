package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/workflows"
)

// `admin reminders status` answers from Postgres even when Temporal does not, and says why the progress is missing.
func TestAdminReminders_StatusWithoutTemporal(t *testing.T) {
	d := dbtest.New(t)
	vars := map[string]string{"DATABASE_URL": dbtest.URL(t, d), "LOG_LEVEL": "error", "TEMPORAL_ADDRESS": "127.0.0.1:1",
		"TEMPORAL_UI_URL": "http://127.0.0.1:8233"}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"admin", "reminders", "status"}, func(k string) string { return vars[k] },
		&out, &bytes.Buffer{}))
	var m map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &m), out.String())
	require.EqualValues(t, 0, m["badgesWithPolicy"])
	require.Equal(t, map[string]any{}, m["byState"])
	require.Equal(t, workflows.ReminderWorkflowID, m["workflowId"])
	require.Contains(t, m["temporalUiUrl"], "/workflows/"+workflows.ReminderWorkflowID)
	require.NotEmpty(t, m["progressError"])
	require.NotContains(t, m, "progress")
}
