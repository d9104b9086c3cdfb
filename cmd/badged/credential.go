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
  badged credential verify [--controller FILE]... [--offline] [--rpc URL --anchor-tx HASH] FILE
  badged credential unbake [--raw] FILE

verify checks a credential JSON or a baked PNG/SVG badge, from this service or any eddsa-rdfc-2022 issuer: the
proof (JSON-LD contexts are embedded, never fetched), the validity period, the revocation status and, with --rpc
and --anchor-tx, the anchor. It prints one line per check, then VALID or INVALID, and exits 0 only when valid.

The issuer's key comes from did:key, from a controller document given with --controller, or else from the
issuer's https:// or did:web controller document (http:// only for localhost). The anchor is recorded by the
issuer (the assertion shows its transaction), not in the credential: give its hash with --anchor-tx and a JSON-RPC
endpoint of its chain with --rpc; the transaction data must be the SHA-256 of the credential bytes exactly as
served (unbake --raw gives them from an image). For a revoked credential of a badged issuer, the date and reason
the issuer gives at <credential id>/status are printed too (the issuer's statement, not a check).

  --controller FILE  a trusted controller document (repeatable)
  --offline          no network: status and anchor are not checked
  --rpc URL          JSON-RPC endpoint of the anchor's chain
  --anchor-tx HASH   the anchor transaction

unbake prints the credential baked in a PNG or SVG badge, indented (--raw: exactly as embedded).
`

// errInvalid is returned when a credential was checked and is not valid; main exits 1.
var errInvalid = errors.New("credential is not valid")

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
	fs := flag.NewFlagSet("credential verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var controllers []string
	fs.Func("controller", "trusted controller document file", func(s string) error {
		controllers = append(controllers, s)
		return nil
	})
	offline := fs.Bool("offline", false, "no network access")
	rpcURL := fs.String("rpc", "", "JSON-RPC endpoint of the anchor's chain")
	anchorTx := fs.String("anchor-tx", "", "anchor transaction hash")
	file, err := parseWithFile(fs, args, stdout)
	if err != nil || file == "" {
		return err
	}
	opts := verifier.Options{Offline: *offline}
	for _, path := range controllers {
		doc, err := readFile(path)
		if err != nil {
			return fmt.Errorf("credential verify: --controller: %w", err)
		}
		opts.Controllers = append(opts.Controllers, doc)
	}
	switch {
	case (*rpcURL == "") != (*anchorTx == ""):
		return errors.New("credential verify: --rpc and --anchor-tx go together")
	case *rpcURL != "" && *offline:
		return errors.New("credential verify: --offline cannot check an anchor; drop --rpc/--anchor-tx or --offline")
	case *rpcURL != "":
		opts.Anchor = &verifier.AnchorRef{RPCURL: *rpcURL, TxHash: *anchorTx}
	}
	input, err := readFile(file)
	if err != nil {
		return fmt.Errorf("credential verify: %w", err)
	}
	rep, err := verifier.Verify(ctx, input, opts)
	if err != nil {
		return fmt.Errorf("credential verify %s: %w", file, err)
	}
	fmt.Fprintf(stdout, "credential: %s (%s, issuer %s)\n", orNone(rep.ID), rep.Format, orNone(rep.Issuer))
	for _, c := range rep.Checks {
		line := c.Name + ": " + c.Result
		if c.Detail != "" {
			line += " (" + c.Detail + ")"
		}
		fmt.Fprintln(stdout, line)
	}
	if !rep.Valid() {
		if !*offline {
			printRevocation(ctx, rep, verifier.NewHTTPFetcher(), stdout)
		}
		fmt.Fprintln(stdout, "INVALID")
		return errInvalid
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
