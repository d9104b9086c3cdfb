package main

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/badged/badged/api"
	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/console"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/temporal"
)

// withConsole mounts the console on deps: its mail-link sign-in (internal/signin, console audience) sends links
// through the process's one sign-in mailer, the earner's too (serve runs it on the senders the worker's
// notifications use: SMTP when SMTP_HOST is set, else the outbox directory).
func withConsole(cfg config.Config, deps *api.Deps, mailer *signin.Mailer) error {
	svc, err := signin.New(signin.Config{DB: deps.DB, Audience: signin.Console, BaseURL: cfg.PublicBaseURL, Prefix: "/console",
		Mailer: mailer, Metrics: deps.Metrics, Eligible: console.Eligible(deps.DB)})
	if err != nil {
		return fmt.Errorf("console sign-in: %w", err)
	}
	deps.Console = console.NewMailSignIn(svc)
	return nil
}

// withConsoleRedrive lets the console re-drive retryable failures through the path `badged admin issuance
// redrive` takes (temporal.Redriver: the workflow's Update while it is open, else temporal.Redrive with the
// worker's retry policy), on the API process's Temporal client.
func withConsoleRedrive(cfg config.Config, deps *api.Deps, tc client.Client) error {
	if tc == nil {
		return nil
	}
	policy, err := loadPolicy(cfg)
	if err != nil {
		return err
	}
	d := deps.DB
	r := temporal.Redriver{DB: d, Policy: policy, Client: tc, Start: temporal.Starter{Client: tc, DB: d, BaseURL: cfg.PublicBaseURL}.StartRedrive}
	deps.ConsoleRedrive = func(ctx context.Context, id uuid.UUID) (string, error) {
		res, err := r.Redrive(ctx, id)
		return fmt.Sprintf("run %d, %d recipients", res.Run, len(res.AssertionIDs)), err
	}
	return nil
}
