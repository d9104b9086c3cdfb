package main

import (
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/badged/badged/api"
	"github.com/badged/badged/cmd/badged/internal/config"
	"github.com/badged/badged/console"
	"github.com/badged/badged/earner"
	"github.com/badged/badged/internal/signin"
	"github.com/badged/badged/temporal"
	"github.com/badged/badged/wire"
)

// withSignIns gives deps the earner's and the console's mail-link sign-in (internal/signin, one audience each),
// both sending through the process's one mailer (serve runs it on the senders the worker's notifications use: SMTP
// when SMTP_HOST is set, else the outbox directory) under the same limits (SIGNIN_PER_ADDRESS, SIGNIN_PER_CLIENT).
func withSignIns(cfg config.Config, deps *api.Deps, mailer *signin.Mailer) error {
	build := func(c signin.Config) (*signin.Service, error) {
		c.BaseURL, c.Mailer, c.Metrics = cfg.PublicBaseURL, mailer, deps.Metrics
		c.PerAddress, c.PerClient = cfg.SignInPerAddress, cfg.SignInPerClient
		svc, err := signin.New(c)
		if err != nil {
			return nil, fmt.Errorf("%s sign-in: %w", c.Audience, err)
		}
		return svc, nil
	}
	earnerSvc, err := build(earner.SignInConfig(deps.DB))
	if err != nil {
		return err
	}
	consoleSvc, err := build(console.SignInConfig(deps.DB))
	if err != nil {
		return err
	}
	deps.SignIn.Service = earnerSvc
	deps.Console = console.NewMailSignIn(consoleSvc)
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
	deps.ConsoleRedrive = wire.ConsoleRedrive(r)
	return nil
}
