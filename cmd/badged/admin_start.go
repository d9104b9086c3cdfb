package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/temporal"
)

// startOut is the output of `admin issuance start`.
type startOut struct {
	IssuanceID       string `json:"issuanceId"`
	ProcessingStatus string `json:"processingStatus"`
	WorkflowID       string `json:"workflowId"`
	TemporalUIURL    string `json:"temporalUiUrl,omitempty"`
	// Started is true when this invocation started the workflow; false when it already existed or the issuance
	// has finished.
	Started bool `json:"started"`
}

// adminStart starts the workflow of a PROCESSING issuance that has none: by hand what the worker's reconciler does
// after ORPHAN_AFTER. An issuance whose workflow exists, or that finished, is left alone.
func adminStart(ctx context.Context, cfg config.Config, d *db.DB, id string) (startOut, error) {
	issID, err := uuid.Parse(id)
	if err != nil {
		return startOut{}, errors.New("issuance start: ID must be an issuance id")
	}
	iss, err := d.GetIssuanceAnyOrg(ctx, issID)
	if db.IsNotFound(err) {
		return startOut{}, fmt.Errorf("issuance start: no issuance %s", issID)
	}
	if err != nil {
		return startOut{}, err
	}
	tc, err := dialAdminTemporal(ctx, cfg)
	if err != nil {
		return startOut{}, err
	}
	defer tc.Close()
	started, err := temporal.StartOrphan(ctx, temporal.Starter{Client: tc, DB: d, BaseURL: cfg.PublicBaseURL,
		RedriveWindow: cfg.RedriveWindow}, iss)
	if err != nil {
		return startOut{}, err
	}
	if iss.ProcessingStatus == string(db.IssuanceProcessing) {
		if err := d.MarkWorkflowStarted(ctx, iss.ID); err != nil {
			return startOut{}, err
		}
	}
	return startOut{IssuanceID: iss.ID.String(), ProcessingStatus: iss.ProcessingStatus, WorkflowID: iss.WorkflowID,
		TemporalUIURL: temporalUIURL(cfg, iss.WorkflowID), Started: started}, nil
}

// dialAdminTemporal connects an admin command to the configured Temporal, or to the embedded server of a running
// `badged dev` when none is configured.
func dialAdminTemporal(ctx context.Context, cfg config.Config) (client.Client, error) {
	addr := cfg.TemporalAddress
	if addr == "" {
		addr = cfg.TemporalDevAddr
	}
	return dialTemporal(ctx, cfg, addr, slog.Default(), nil)
}
