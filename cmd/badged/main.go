// Command badged is the badge issuing service: the HTTP API, database migrations and operator commands.
//
//	badged dev       everything on the embedded default (what `make run` starts)
//	badged serve     serve the HTTP API
//	badged worker    run the issuance worker
//	badged migrate   apply database migrations
//	badged admin …   organizations, API keys and credits (JSON on stdout)
//	badged credential verify|unbake FILE   verify or extract a credential
//	badged log verify --issuer URL         monitor an issuer's issuance log
//
// As the top of the tree it may import every package of the module; the embedded Temporal server and dev chain only
// in dev.go, which production builds (-tags production) leave out. It parses flags and configuration and calls
// packages; the wiring itself is package wire.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // TIME_ZONE works on hosts without a zoneinfo database

	"github.com/badged/badged/cmd/badged/internal/config"
)

const usage = `usage: badged <command> [arguments]

commands:
  dev                        the whole service on the embedded default: database, Temporal + UI, dev chain,
                             worker and API in one process
  serve                      serve the HTTP API (TEMPORAL_ADDRESS required)
  worker                     run the issuance worker (TEMPORAL_ADDRESS required)
  migrate                    apply database migrations
  admin org create --name NAME [--credits N] [--owner-email ADDRESS]
  admin member add --org ID --email ADDRESS --role ORG_VIEWER|ORG_MANAGER|ORG_OWNER
  admin org update --id ID [--name NAME] [--url URL] [--logo-media MEDIA_ID] [--wallet-offers on|off]
                             the issuer profile on badge pages: website (--url "" clears it) and logo (an image
                             the organization uploaded with POST /media-files/images)
  admin key create --org ID --role ORG_VIEWER|ORG_MANAGER|ORG_OWNER [--mode live|test]
  admin key revoke --id ID
  admin credits grant --org ID --amount N
  admin assertion copies --id ID  an assertion's wallet copies: format, holder DID, time, wallet event, anchor
  admin log backfill [--org ID]
                             append to the issuance logs the live credentials issued before the log existed, in
                             issuance order (once each; safe to run again and while issuances run)
  admin keyring rewrap       re-seal every issuer key (Ed25519, RSA) with ISSUER_KEY_RING's first entry
  admin issuance inspect ID  an issuance: recipients by state and step, failures, undelivered notifications,
                             and what Temporal says of its workflow (never started: start it)
  admin issuance redrive ID  re-run the FAILED recipients whose errorCode is retryable (needs Temporal)
  admin issuance start ID    start the workflow of a PROCESSING issuance that has none (what the worker's
                             reconciler does after ORPHAN_AFTER)
  admin reminders status     expiry reminders by state, badges with a policy, the sweep workflow's progress
  admin retry-policy check FILE
                             validate a retry table (each mistake named by its line) and print the effective table
  admin notification resend --assertion ID --request TICKET
                             send an issued credential's notification again, at most once per request id
  admin webhook create --org ID --url URL [--events TYPE,…]
                             a webhook endpoint; prints its id and secret (shown only here)
  admin webhook list [--org ID] | delete ID | enable ID | deliveries ID
                             endpoints (disabled ones with their reason), removal, re-enabling, delivery log
  admin webhook redeliver DELIVERY_ID|EVENT_ID
                             send an event again (same webhook-id) as a new delivery (needs Temporal)
  credential verify [--controller FILE]... [--offline] [--receipt FILE] [--rpc URL] FILE|URL
                             verify an eddsa-rdfc-2022 credential (JSON, or a baked PNG/SVG); exit 0 VALID,
                             1 INVALID, 3 COULD NOT CHECK, 2 nothing verified (see credential -h)
  credential unbake [--raw] FILE
                             print the credential baked into a PNG or SVG
  log verify --issuer URL [--state FILE]
                             monitor an issuer's issuance log: checkpoint signature, tiles, consistency with the
                             last run, the entries added since; exit 0 VERIFIED, 1 not (see log -h)

configuration is read from the environment; see README.md.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Args[1:], os.Stderr))
}

var errUsage = errors.New("usage")

// exitCode reports err to whoever ran the command and returns the process's exit status: 0 without an error, 2
// with the usage, an exitError's own code, else 1 after logging the error.
func exitCode(err error, args []string, stderr io.Writer) int {
	var exit *exitError
	var start *startError
	name := "badged"
	if len(args) > 0 {
		name += " " + args[0]
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprint(stderr, usage)
		return 2
	case errors.As(err, &exit):
		if exit.Err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, exit.Err)
		}
		return exit.Code
	case errors.As(err, &start):
		// A plain line, not a log record: it is the last thing a person who ran `make run` reads, and it must say
		// which part did not start and on which address, whatever LOG_FORMAT is.
		fmt.Fprintf(stderr, "%s: %v\n", name, start)
		return 1
	}
	slog.Error("badged", "err", err)
	return 1
}

// exitError ends the process with Code, after printing Err (when not nil) as one plain line on stderr: for a
// command whose outcome is its exit status (`credential verify`: the verdict is on stdout already).
type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *exitError) Unwrap() error { return e.Err }

// startError is a part of `badged dev|serve|worker` that could not start. main prints it as one line that names
// the part and, through the part's own error, its address:
//
//	badged dev: chain: listen tcp 127.0.0.1:8545: bind: address already in use (another process has it: stop it, or set DEV_CHAIN_ADDR)
//
// Setting is the variable that says where the part runs, when there is one.
type startError struct {
	Part    string // database, chain, temporal, temporal ui, worker, metrics, api, …
	Setting string
	Err     error
}

func (e *startError) Error() string {
	s := e.Part + ": " + e.Err.Error()
	switch {
	case e.Setting == "":
	case errors.Is(e.Err, syscall.EADDRINUSE):
		s += " (another process has it: stop it, or set " + e.Setting + ")"
	default:
		s += " (" + e.Setting + ")"
	}
	return s
}

func (e *startError) Unwrap() error { return e.Err }

// startFailed names the part of a start error, unless it is named already (nil stays nil).
func startFailed(part, setting string, err error) error {
	var named *startError
	if err == nil || errors.As(err, &named) {
		return err
	}
	return &startError{Part: part, Setting: setting, Err: err}
}

// run dispatches a command; it is main without the process: tests call it with their own args and environment.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	log := newLogger(cfg, stderr)
	slog.SetDefault(log)
	switch args[0] {
	case "dev":
		return runParts(ctx, cfg, log, roles{api: true, worker: true, dev: true})
	case "serve":
		return runParts(ctx, cfg, log, roles{api: true})
	case "worker":
		return runParts(ctx, cfg, log, roles{worker: true})
	case "migrate":
		return runMigrate(ctx, cfg, log, true)
	case "admin":
		return runAdmin(ctx, cfg, args[1:], stdout)
	case "credential":
		return runCredential(ctx, args[1:], stdout)
	case "log":
		return runLog(ctx, args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return errUsage
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
