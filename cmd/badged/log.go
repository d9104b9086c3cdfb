package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/badged/badged/internal/issuancelog"
)

const logUsage = `usage: badged log verify --issuer URL [--state FILE]

Verifies an issuer's issuance log (C2SP checkpoint and tiles under URL/log/): the checkpoint's signature with an
Ed25519 key the issuer's controller document (URL) lists, every entry and hash tile against the checkpoint's root,
and, with --state, that the log only grew since the checkpoint the file keeps (a consistency proof). It prints the
entries added since (all of them without --state), one a line: index, validFrom, type, sha256, credential id; then
writes the new checkpoint to the state file. Exit 0 verified, 1 the log did not verify (the state file is left
as it was), 2 usage.
`

// runLog runs `badged log verify`.
func runLog(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "verify" {
		if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
			fmt.Fprint(stdout, logUsage)
			return nil
		}
		return &exitError{Code: 2, Err: fmt.Errorf("want: log verify --issuer URL [--state FILE]\n%s", logUsage)}
	}
	fs := flag.NewFlagSet("log verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	issuerURL := fs.String("issuer", "", "the issuer id (URL of its controller document)")
	statePath := fs.String("state", "", "file keeping the last verified checkpoint")
	if err := fs.Parse(args[1:]); err != nil || *issuerURL == "" || fs.NArg() > 0 {
		return &exitError{Code: 2, Err: fmt.Errorf("log verify: --issuer URL is required (%v)\n%s", err, logUsage)}
	}
	var prev *issuancelog.State
	if *statePath != "" {
		b, err := os.ReadFile(*statePath)
		switch {
		case errors.Is(err, os.ErrNotExist): // the first run
		case err != nil:
			return &exitError{Code: 2, Err: fmt.Errorf("log verify: --state: %w", err)}
		default:
			prev = &issuancelog.State{}
			if err := json.Unmarshal(b, prev); err != nil {
				return &exitError{Code: 2, Err: fmt.Errorf("log verify: --state %s: %w", *statePath, err)}
			}
		}
	}
	rep, err := issuancelog.Monitor{}.Verify(ctx, *issuerURL, prev)
	if err != nil {
		return &exitError{Code: 1, Err: fmt.Errorf("log verify: NOT VERIFIED: %w", err)}
	}
	fmt.Fprintf(stdout, "log: %s\n", rep.Checkpoint.Origin)
	fmt.Fprintf(stdout, "checkpoint: %d entries, root %s (signature verified with the controller document's key)\n",
		rep.Checkpoint.Size, rep.NewState().RootHash)
	if prev != nil {
		fmt.Fprintf(stdout, "consistent with the state's checkpoint of %d entries\n", prev.TreeSize)
	}
	fmt.Fprintf(stdout, "added since %d: %d\n", rep.Since, len(rep.Added))
	for _, e := range rep.Added {
		fmt.Fprintf(stdout, "%d %s %s %s %s\n", e.Index, e.ValidFrom.Format("2006-01-02T15:04:05Z"), e.Type,
			hex.EncodeToString(e.SHA256[:]), e.CredentialID)
	}
	if *statePath != "" {
		if err := writeState(*statePath, rep.NewState()); err != nil {
			return fmt.Errorf("log verify: --state: %w", err)
		}
	}
	fmt.Fprintln(stdout, "VERIFIED")
	return nil
}

// writeState replaces the state file atomically: a crash leaves the old checkpoint or the new one.
func writeState(path string, s issuancelog.State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".badged-log-state-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
