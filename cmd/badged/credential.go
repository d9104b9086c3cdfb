package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/badged/badged/internal/baking"
	"github.com/badged/badged/internal/verifier"
)

const credentialUsage = `usage:
  badged credential verify [--controller FILE]... [--offline] [--receipt FILE] [--rpc URL] FILE|URL
  badged credential unbake [--raw] FILE

verify checks a credential JSON or a baked PNG/SVG badge (a file, "-" for standard input, or an http(s) URL),
from this service or any eddsa-rdfc-2022 issuer: the proof (JSON-LD contexts are embedded, never fetched), the
validity period, the revocation status and the anchor. It prints one line per check (ok, failed, revoked,
expired, none, not checked: left out by the options, could not check: what it needed could not be had), then
the verdict, and exits with it:

  0  VALID            no check failed or could not be done; "VALID (not checked: …)" names what the options
                      left out (--offline: the status and the anchor; no --rpc: the anchor's transaction)
  1  INVALID (…)      a check proves the credential bad: proof, expiry, revocation, anchor digest or proof,
                      transaction, sender; or TEST: a test issuer's credential (its controller document says so)
  2                   nothing was verified: bad arguments, an unreadable file, no credential in the input
  3  COULD NOT CHECK (…)
                      nothing proves it bad, but a check it needs could not be done: the issuer's key offline
                      without --controller, a controller document, status list, receipt or node (--rpc) that
                      could not be reached

The issuer's key comes from did:key, from a controller document given with --controller, or else from the
issuer's https:// or did:web controller document (http:// only for localhost). --offline never uses the
network: it checks the proof with did:key or the --controller document, and the validity period; the status and,
without --receipt, the anchor are not checked.

The anchor is checked from the credential's anchor receipt: the one given with --receipt, or the one the issuer
serves at the credential's id + "/receipt" (asked only when that id is on the issuer's host). The SHA-256 of the
credential bytes exactly as found must be the receipt's digest, and its Merkle proof must lead to the root the
receipt says the transaction carries. With --rpc, the transaction is fetched from the chain: it must exist, have
succeeded, be in the receipt's block, carry the root as its data, and be sent by the account the issuer's
controller document names (blockchainAccountId eip155:<chain>:<address>). A credential whose issuer serves no
receipt has anchor "none"; with --rpc the anchor then could not be checked. For a revoked credential of a badged
issuer, the date and reason the issuer gives at <credential id>/status are printed too (the issuer's statement,
not a check).

  --controller FILE  a trusted controller document (repeatable)
  --offline          no network: the proof (did:key or --controller), the validity period, a --receipt file
  --receipt FILE     the credential's anchor receipt (JSON)
  --rpc URL          JSON-RPC endpoint of the anchor's chain

unbake prints the credential baked in a PNG or SVG badge, indented (--raw: exactly as embedded).
`

// The verdicts that are not VALID, as the command's exit statuses; the verdict line on stdout says the rest.
var (
	errInvalid       = &exitError{Code: 1} // INVALID or TEST
	errCouldNotCheck = &exitError{Code: 3} // COULD NOT CHECK
)

// exitNotVerified is the status of a `credential verify` that verified nothing: bad arguments, an unreadable file,
// no credential in the input.
const exitNotVerified = 2

// maxInputBytes bounds the file read: the largest image baking accepts.
const maxInputBytes = baking.MaxImageBytes

// runCredential runs `badged credential verify|unbake`.
func runCredential(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("credential: want verify or unbake\n%s", credentialUsage)
	}
	switch args[0] {
	case "verify":
		return credentialVerify(ctx, args[1:], stdout)
	case "unbake":
		return credentialUnbake(args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, credentialUsage)
		return nil
	}
	return fmt.Errorf("credential: unknown command %q\n%s", args[0], credentialUsage)
}

func credentialVerify(ctx context.Context, args []string, stdout io.Writer) error {
	rep, offline, err := verifyCredential(ctx, args, stdout)
	if err != nil || rep == nil {
		return err
	}
	fmt.Fprintf(stdout, "credential: %s (%s, issuer %s)\n", orNone(rep.ID), rep.Format, orNone(rep.Issuer))
	for _, c := range rep.Checks {
		line := c.Name + ": " + c.Result
		if c.Detail != "" {
			line += " (" + c.Detail + ")"
		}
		fmt.Fprintln(stdout, line)
	}
	if rep.Verdict() == verifier.VerdictInvalid && !offline {
		printRevocation(ctx, rep, verifier.NewHTTPFetcher(), stdout)
	}
	return printVerdict(rep, stdout)
}

// verifyCredential parses the arguments, reads the input and verifies it. A nil report with a nil error means the
// usage was printed (-h). Its errors are exitErrors: nothing verified, or the credential could not be fetched.
func verifyCredential(ctx context.Context, args []string, stdout io.Writer) (_ *verifier.Report, offline bool, _ error) {
	fs := flag.NewFlagSet("credential verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var controllers []string
	fs.Func("controller", "trusted controller document file", func(s string) error {
		controllers = append(controllers, s)
		return nil
	})
	fs.BoolVar(&offline, "offline", false, "no network access")
	rpcURL := fs.String("rpc", "", "JSON-RPC endpoint of the anchor's chain")
	receipt := fs.String("receipt", "", "anchor receipt file")
	file, err := parseWithFile(fs, args, stdout)
	if err != nil || file == "" {
		return nil, offline, notVerified(err)
	}
	opts := verifier.Options{Offline: offline}
	for _, path := range controllers {
		doc, err := readFile(path)
		if err != nil {
			return nil, offline, notVerified(fmt.Errorf("credential verify: --controller: %w", err))
		}
		opts.Controllers = append(opts.Controllers, doc)
	}
	if *rpcURL != "" && offline {
		return nil, offline, notVerified(errors.New("credential verify: --offline cannot ask the chain; drop --rpc or --offline"))
	}
	opts.RPCURL = *rpcURL
	if *receipt != "" {
		if opts.Receipt, err = readFile(*receipt); err != nil {
			return nil, offline, notVerified(fmt.Errorf("credential verify: --receipt: %w", err))
		}
	}
	input, err := readInput(ctx, file, offline)
	if err != nil {
		return nil, offline, err
	}
	rep, err := verifier.Verify(ctx, input, opts)
	if err != nil {
		return nil, offline, notVerified(fmt.Errorf("credential verify %s: %w", file, err))
	}
	return rep, offline, nil
}

// notVerified is the error of a `credential verify` that verified nothing (nil stays nil).
func notVerified(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{Code: exitNotVerified, Err: err}
}

// printVerdict prints the verdict line and returns the command's outcome: nil (VALID), errInvalid (INVALID, TEST)
// or errCouldNotCheck. Each verdict names the checks it rests on: the failed ones, those that could not be done,
// and those the options left out.
func printVerdict(rep *verifier.Report, stdout io.Writer) error {
	var failed, couldNot, notChecked []string
	for _, c := range rep.Checks {
		switch {
		case c.Failed:
			failed = append(failed, c.Name+": "+c.Result)
		case c.CouldNotCheck:
			couldNot = append(couldNot, c.Name)
		case c.Result == verifier.ResultNotChecked:
			notChecked = append(notChecked, c.Name)
		}
	}
	left := ""
	if len(notChecked) > 0 {
		left = "not checked: " + strings.Join(notChecked, ", ")
	}
	switch rep.Verdict() {
	case verifier.VerdictInvalid:
		if rep.Test() {
			// Before INVALID, whatever else failed: the first thing to know of a test credential is what it is.
			fmt.Fprintln(stdout, "TEST: signed by the test issuer of "+rep.TestIssuerOf+"; a test-mode credential, not a real badge")
			return errInvalid
		}
		fmt.Fprintln(stdout, "INVALID ("+strings.Join(failed, "; ")+")")
		return errInvalid
	case verifier.VerdictCouldNotCheck:
		line := strings.Join(couldNot, ", ")
		if left != "" {
			line += "; " + left
		}
		fmt.Fprintln(stdout, "COULD NOT CHECK ("+line+")")
		return errCouldNotCheck
	}
	if left != "" {
		fmt.Fprintln(stdout, "VALID ("+left+")")
		return nil
	}
	fmt.Fprintln(stdout, "VALID")
	return nil
}

func credentialUnbake(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("credential unbake", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	raw := fs.Bool("raw", false, "print the credential exactly as embedded")
	file, err := parseWithFile(fs, args, stdout)
	if err != nil || file == "" {
		return err
	}
	input, err := readFile(file)
	if err != nil {
		return fmt.Errorf("credential unbake: %w", err)
	}
	cred, format, err := verifier.Extract(input)
	if err != nil {
		return fmt.Errorf("credential unbake %s: %w", file, err)
	}
	if format == verifier.FormatJSON {
		return fmt.Errorf("credential unbake %s: the file is credential JSON, not a baked image", file)
	}
	if *raw {
		_, err = stdout.Write(cred)
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(cred), "", "  "); err != nil {
		return fmt.Errorf("credential unbake %s: %w", file, err)
	}
	out.WriteByte('\n')
	_, err = stdout.Write(out.Bytes())
	return err
}

// parseWithFile parses flags given before or after the one FILE argument. It returns an empty file (and nil)
// after printing the usage for -h.
func parseWithFile(fs *flag.FlagSet, args []string, stdout io.Writer) (string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, credentialUsage)
				return "", nil
			}
			return "", fmt.Errorf("%s: %w\n%s", fs.Name(), err, credentialUsage)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		return "", fmt.Errorf("%s: want exactly one FILE, got %d\n%s", fs.Name(), len(files), credentialUsage)
	}
	return files[0], nil
}

// readInput reads the credential from a file, or fetches it when it is an http(s) URL (https, or http to
// localhost, as the verifier fetches issuer documents). A URL that cannot be fetched is "could not check" (exit 3),
// anything else is nothing verified (exit 2).
func readInput(ctx context.Context, file string, offline bool) ([]byte, error) {
	if !strings.HasPrefix(file, "https://") && !strings.HasPrefix(file, "http://") {
		b, err := readFile(file)
		if err != nil {
			return nil, notVerified(fmt.Errorf("credential verify: %w", err))
		}
		return b, nil
	}
	if offline {
		return nil, notVerified(fmt.Errorf("credential verify: %s is a URL and --offline forbids fetching it", file))
	}
	b, err := verifier.NewHTTPFetcher().Fetch(ctx, file)
	if errors.Is(err, verifier.ErrURLNotAllowed) {
		return nil, notVerified(fmt.Errorf("credential verify: %w", err))
	}
	if err != nil {
		return nil, &exitError{Code: errCouldNotCheck.Code, Err: fmt.Errorf("credential verify: could not fetch the credential: %w", err)}
	}
	return b, nil
}

// readFile reads at most maxInputBytes of path ("-" is standard input).
func readFile(path string) ([]byte, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxInputBytes {
		return nil, fmt.Errorf("read %s: larger than %d bytes", path, maxInputBytes)
	}
	return b, nil
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "none"
	}
	return s
}
