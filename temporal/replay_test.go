package temporal

import (
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/log"
)

// historiesGlob matches the recorded histories: one directory per recorded set (make record-histories), each
// with one JSON history per workflow run.
const historiesGlob = "testdata/histories/*/*.json"

// TestReplayRecordedHistories replays every history recorded from a real run (e2e TestWorkflowHistories with
// -record) on the workflows as the worker registers them. A workflow change that issues other commands than an
// old history recorded fails here, with the replayer's non-determinism error: such a change must take its new
// path only behind workflow.GetVersion (README, "Deploys without draining"), and old sets stay until no run of
// theirs can be open.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(historiesGlob)
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recorded histories under testdata/histories")
	quiet := log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	covered := map[string]bool{}
	for _, file := range files {
		h, err := ReadHistory(file)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(h.Events), 3, "%s: not a history", file)
		typ := h.Events[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()
		covered[typ] = true
		t.Run(strings.TrimPrefix(file, "testdata/histories/"), func(t *testing.T) {
			// A completed run: the replayer then also checks that the code ends it with the same command.
			require.Equal(t, enums.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, h.Events[len(h.Events)-1].GetEventType(),
				"%s is not the history of a completed run", file)
			require.NoError(t, ReplayHistory(h, quiet), "%s (%s) no longer replays", file, typ)
		})
	}
	for _, wf := range Workflows() {
		require.True(t, covered[wf.Name], "no recorded history of %s: record one (make record-histories)", wf.Name)
	}
}

// TestWorkflowNamesMatchFunctions: clients start workflows by function reference, so the SDK names them after the
// function; the worker registers the names of Workflows. A function renamed without its entry would start runs
// no worker takes, and one renamed with it would orphan every open run and recorded history of the old name.
func TestWorkflowNamesMatchFunctions(t *testing.T) {
	for _, wf := range Workflows() {
		full := runtime.FuncForPC(reflect.ValueOf(wf.Func).Pointer()).Name() // the SDK's own derivation
		require.Equal(t, wf.Name, strings.TrimSuffix(full[strings.LastIndex(full, ".")+1:], "-fm"))
	}
}
