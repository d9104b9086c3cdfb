package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
)

// The workflow states `admin issuance inspect` adds to Temporal's own (RUNNING, COMPLETED, FAILED, TERMINATED…).
const (
	workflowNotFound = "NOT_FOUND" // Temporal has no workflow of that id in the namespace
	workflowUnknown  = "UNKNOWN"   // Temporal did not answer
)

// inspectTemporalTimeout bounds the dial and the question to Temporal: the database's rows are printed anyway.
const inspectTemporalTimeout = 10 * time.Second

// workflowOut is what Temporal says of an issuance's workflow, and what that means for the issuance.
type workflowOut struct {
	Status    string `json:"status"`
	RunID     string `json:"runId,omitempty"`
	StartTime string `json:"startTime,omitempty"`
	CloseTime string `json:"closeTime,omitempty"`
	// Note says what the status means for the issuance; Next is the command that helps, when one does.
	Note  string `json:"note,omitempty"`
	Next  string `json:"next,omitempty"`
	Error string `json:"error,omitempty"` // why Temporal did not answer (UNKNOWN)
}

// workflowDescriber is the part of the Temporal client inspect uses; client.Client satisfies it.
type workflowDescriber interface {
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
}

// unreachable is a workflowDescriber for a Temporal that could not be dialled.
type unreachable struct{ err error }

func (u unreachable) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return nil, u.err
}

// adminInspect is `admin issuance inspect ID`: the issuance's rows from Postgres and its workflow from the
// configured Temporal (or a running `badged dev`'s), whichever answers.
func adminInspect(ctx context.Context, cfg config.Config, d *db.DB, id string) (inspectOut, error) {
	tctx, cancel := context.WithTimeout(ctx, inspectTemporalTimeout)
	defer cancel()
	var wf workflowDescriber
	tc, err := dialAdminTemporal(tctx, cfg)
	if err != nil {
		wf = unreachable{err}
	} else {
		defer tc.Close()
		wf = tc
	}
	return inspectIssuance(ctx, d, cfg, wf, id)
}

// workflowStatus asks Temporal about the issuance's workflow. An issuance still PROCESSING whose workflow Temporal
// does not have was never started (the API process died between its commit and the start, and the client did
// not retry): nothing processes it until `badged admin issuance start ID`, or a worker's reconciler after
// ORPHAN_AFTER, starts it. That is said in so many words, since the database's rows alone look like an issuance in
// progress.
func workflowStatus(ctx context.Context, wf workflowDescriber, cfg config.Config, iss db.Issuance) workflowOut {
	ctx, cancel := context.WithTimeout(ctx, inspectTemporalTimeout)
	defer cancel()
	desc, err := wf.DescribeWorkflowExecution(ctx, iss.WorkflowID, "")
	processing := iss.ProcessingStatus == string(db.IssuanceProcessing)
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &notFound):
		out := workflowOut{Status: workflowNotFound}
		where := fmt.Sprintf("Temporal (namespace %s) has no workflow %s", namespaceOf(cfg), iss.WorkflowID)
		switch {
		case !processing:
			out.Note = where + ": the issuance is " + iss.ProcessingStatus + " and its workflow's history has passed the namespace's retention"
		case iss.WorkflowStartedAt == nil:
			out.Note = where + ": it was never started, so nothing processes this issuance (a running worker's reconciler starts such workflows after ORPHAN_AFTER)"
			out.Next = "badged admin issuance start " + iss.ID.String()
		default:
			out.Note = where + ", though its start was recorded at " + rfc3339(*iss.WorkflowStartedAt) +
				": is this the Temporal and namespace badged runs on? If so, nothing processes this issuance"
			out.Next = "badged admin issuance start " + iss.ID.String()
		}
		return out
	case err != nil:
		return workflowOut{Status: workflowUnknown, Error: err.Error(),
			Note: "Temporal did not answer; the counts below are the database's"}
	}
	info := desc.GetWorkflowExecutionInfo()
	out := workflowOut{Status: strings.TrimPrefix(enums.WorkflowExecutionStatus_name[int32(info.GetStatus())], "WORKFLOW_EXECUTION_STATUS_"),
		RunID: info.GetExecution().GetRunId()}
	if t := info.GetStartTime(); t != nil {
		out.StartTime = rfc3339(t.AsTime())
	}
	if t := info.GetCloseTime(); t != nil {
		out.CloseTime = rfc3339(t.AsTime())
	}
	if processing && out.Status != "RUNNING" {
		out.Note = "the workflow is closed (" + out.Status + ") but the issuance is still PROCESSING: see its history in the Temporal UI"
	}
	if !processing && out.Status == "RUNNING" {
		out.Note = "the pipeline has finished and the workflow waits, until its REDRIVE_WINDOW ends, for a re-drive of its " +
			"retryable failures (Stage awaiting-redrive) or runs one (Stage redriving): its Update \"redrive\", or `badged admin issuance redrive`"
	}
	return out
}

func namespaceOf(cfg config.Config) string {
	if cfg.TemporalNamespace == "" {
		return "default"
	}
	return cfg.TemporalNamespace
}
