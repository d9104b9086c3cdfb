package temporal

import (
	"errors"
	"fmt"
	"os"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// ReplayHistory replays a workflow history on the workflows as the worker registers them (Workflows) and returns
// the replayer's error: a non-determinism error when the code would not issue the commands the history recorded.
// It replays under the history's own workflow id (recorded in its start event), as the worker did: IssueBadge
// derives its children's ids from it, and the replayer's default id would not match them.
func ReplayHistory(h *historypb.History, logger log.Logger) error {
	if len(h.GetEvents()) == 0 {
		return errors.New("empty history")
	}
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{})
	if err != nil {
		return err
	}
	RegisterWorkflows(r)
	started := h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
	return r.ReplayWorkflowHistoryWithOptions(logger, h, worker.ReplayWorkflowHistoryOptions{
		OriginalExecution: workflow.Execution{ID: started.GetWorkflowId(), RunID: started.GetOriginalExecutionRunId()}})
}

// ReadHistory reads a workflow history from a JSON file as `temporal workflow show --output json` writes it.
func ReadHistory(file string) (*historypb.History, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		return nil, fmt.Errorf("read history %s: %w", file, err)
	}
	return h, nil
}
