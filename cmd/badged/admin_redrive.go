package main

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/audit"
	"github.com/badged/badged/internal/retrypolicy"
	"github.com/badged/badged/temporal"
)

// adminRedrive prepares the re-drive in the database and starts its workflow on the configured Temporal.
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
	return redriveIssuance(ctx, d, cfg, policy, temporal.Starter{Client: tc, DB: d, BaseURL: cfg.PublicBaseURL}.StartRedrive, id)
}

// redriveOut is the output of `admin issuance redrive`: what the re-drive did and where to watch its workflow.
type redriveOut struct {
	temporal.RedriveResult
	TemporalUIURL string `json:"temporalUiUrl,omitempty"`
}

// redriveIssuance parses id and re-drives that issuance (temporal.Redrive).
func redriveIssuance(ctx context.Context, d *db.DB, cfg config.Config, policy *retrypolicy.Policy, start temporal.RedriveStarter,
	id string) (redriveOut, error) {
	issID, err := uuid.Parse(id)
	if err != nil {
		return redriveOut{}, errors.New("issuance redrive: ID must be an issuance id")
	}
	res, err := temporal.Redrive(ctx, d, policy, start, issID, audit.AdminActor)
	out := redriveOut{RedriveResult: res}
	if res.WorkflowID != "" {
		out.TemporalUIURL = temporalUIURL(cfg, res.WorkflowID)
	}
	return out, err
}
