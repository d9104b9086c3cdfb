package main

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/temporal"
)

// adminRedrive re-drives on the configured Temporal: the issuance workflow's Update while it is open, else the
// re-drive prepared in the database and its workflow started.
func adminRedrive(ctx context.Context, cfg config.Config, d *db.DB, id string) (redriveOut, error) {
	policy, err := loadPolicy(cfg)
	if err != nil {
		return redriveOut{}, err
	}
	tc, err := dialAdminTemporal(ctx, cfg)
	if err != nil {
		return redriveOut{}, err
	}
	defer tc.Close()
	return redriveIssuance(ctx, cfg, temporal.Redriver{DB: d, Policy: policy, Client: tc,
		Start: temporal.Starter{Client: tc, DB: d, BaseURL: cfg.PublicBaseURL}.StartRedrive}, id)
}

// redriveOut is the output of `admin issuance redrive`: what the re-drive did and where to watch its workflow.
type redriveOut struct {
	temporal.RedriveResult
	TemporalUIURL string `json:"temporalUiUrl,omitempty"`
}

// redriveIssuance parses id and re-drives that issuance: by the workflow's redrive Update while it is open, else
// outside it (temporal.Redriver).
func redriveIssuance(ctx context.Context, cfg config.Config, r temporal.Redriver, id string) (redriveOut, error) {
	issID, err := uuid.Parse(id)
	if err != nil {
		return redriveOut{}, errors.New("issuance redrive: ID must be an issuance id")
	}
	res, err := r.Redrive(ctx, issID)
	out := redriveOut{RedriveResult: res}
	if res.WorkflowID != "" {
		out.TemporalUIURL = temporalUIURL(cfg, res.WorkflowID)
	}
	return out, err
}
