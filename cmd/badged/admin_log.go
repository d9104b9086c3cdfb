package main

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/issuancelog"
	"github.com/badged/badged/internal/issuer"
)

// logBackfillResult is what `badged admin log backfill` prints: credentials appended per organization.
type logBackfillResult struct {
	Appended map[string]int64 `json:"appended"`
	Total    int64            `json:"total"`
}

// adminLogBackfill appends to the issuance logs the live credentials issued before the log existed (or before
// this deployment had it), in issuance order: of one organization (org), or of every organization with live
// credentials. It is safe to run again, and while issuances run: a credential goes in once.
func adminLogBackfill(ctx context.Context, cfg config.Config, d *db.DB, org string) (logBackfillResult, error) {
	ring, err := openKeyring(cfg, false)
	if err != nil {
		return logBackfillResult{}, err
	}
	iss := issuer.New(d, ring, cfg.PublicBaseURL)
	deps := issuancelog.BackfillDeps{BaseURL: iss.BaseURL, CredentialID: iss.CredentialID,
		Key: func(ctx context.Context, org uuid.UUID) (ed25519.PrivateKey, error) {
			return iss.Key(ctx, org, apikey.ModeLive)
		}}
	var orgs []uuid.UUID
	if org != "" {
		id, err := uuid.Parse(org)
		if err != nil {
			return logBackfillResult{}, fmt.Errorf("--org: %w", err)
		}
		orgs = []uuid.UUID{id}
	} else if orgs, err = d.ListOrgsWithLiveCredentials(ctx); err != nil {
		return logBackfillResult{}, err
	}
	out := logBackfillResult{Appended: map[string]int64{}}
	for _, o := range orgs {
		n, err := issuancelog.Backfill(ctx, d, deps, o)
		out.Appended[o.String()] = n
		out.Total += n
		if err != nil {
			return out, fmt.Errorf("backfill the issuance log of %s: %w", o, err)
		}
	}
	return out, nil
}
