package verifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/badged/badged/internal/credential"
)

// Options say what Verify may use.
type Options struct {
	// Controllers are trusted controller documents (JSON) for issuers that cannot or should not be fetched.
	Controllers [][]byte
	// Offline forbids every network access: keys come from did:key and Controllers only; status and anchor are
	// not checked.
	Offline bool
	// Fetcher fetches controller documents and status lists; nil means NewHTTPFetcher().
	Fetcher Fetcher
	// Receipt is the credential's anchor receipt (JSON); nil fetches it from the issuer (ReceiptURL).
	Receipt []byte
	// RPCURL, when set, is a JSON-RPC endpoint of the anchor's chain: the transaction and its sender are checked.
	RPCURL string
	// Now is the time validity is checked at; zero means time.Now().
	Now time.Time
}

// Check is the outcome of one verification step.
type Check struct {
	Name   string // signature, issuer, expiry, status, or one of the anchor checks (receipt.go)
	Result string // ok, failed, revoked, replaced (revoked by a reissue), expired, not yet valid, none, not checked
	Detail string // what was checked, or why it failed
	Failed bool   // whether this check makes the credential invalid
}

// Report is what Verify checked.
type Report struct {
	Format     string // json, png or svg
	Credential []byte // the credential JSON as found in the input
	ID         string // the credential id, if any
	Issuer     string // the issuer id
	// TestIssuerOf is set when the issuer's controller document marks a test issuer (credential.TestIssuerTerm):
	// the live issuer it stands beside. Such a credential is a test, never valid, whatever its other checks say.
	TestIssuerOf string
	Checks       []Check
}

// Test reports whether the credential comes from a test issuer.
func (r *Report) Test() bool { return r.TestIssuerOf != "" }

// Valid reports whether no check failed.
func (r *Report) Valid() bool {
	for _, c := range r.Checks {
		if c.Failed {
			return false
		}
	}
	return len(r.Checks) > 0
}

// Verify reads a credential from input (JSON, or a baked PNG or SVG) and checks it. The error is only for input
// that holds no credential (wrapping ErrNotCredential) or bad options; an invalid credential gives a Report with
// failed checks.
func Verify(ctx context.Context, input []byte, opts Options) (*Report, error) {
	cred, format, err := Extract(input)
	if err != nil {
		return nil, err
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	var fetcher Fetcher
	if !opts.Offline {
		if fetcher = opts.Fetcher; fetcher == nil {
			fetcher = NewHTTPFetcher()
		}
	}
	resolver, err := NewResolver(opts.Controllers, fetcher)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(cred, &doc); err != nil { // Extract has parsed it once already
		return nil, fmt.Errorf("%w: %v", ErrNotCredential, err)
	}
	rep := &Report{Format: format, Credential: cred, Issuer: credential.IssuerID(doc["issuer"])}
	rep.ID, _ = doc["id"].(string)
	sig, res := checkSignature(ctx, cred, resolver, opts.Offline)
	rep.Checks = append(rep.Checks, sig)
	if res != nil && res.TestIssuerOf != "" {
		rep.TestIssuerOf = res.TestIssuerOf
		rep.Checks = append(rep.Checks, Check{Name: "issuer", Result: "test", Failed: true,
			Detail: fmt.Sprintf("the issuer's document marks %s as the test issuer of %s: a test-mode credential, not a real badge",
				res.Issuer, res.TestIssuerOf)})
	}
	rep.Checks = append(rep.Checks,
		checkValidity(doc, opts.Now),
		checkStatus(ctx, cred, doc, resolver, fetcher, opts.Now))
	rep.Checks = append(rep.Checks, checkAnchor(ctx, cred, rep, opts, fetcher)...)
	return rep, nil
}

// checkSignature checks the proof; the result (nil when it fails) tells whose key signed.
func checkSignature(ctx context.Context, cred []byte, resolver credential.Resolver, offline bool) (Check, *credential.VerifyResult) {
	c := Check{Name: "signature"}
	res, err := credential.VerifyWithLimits(ctx, cred, resolver, credential.DefaultLimits)
	if err != nil {
		c.Result, c.Failed, c.Detail = "failed", true, err.Error()
		if offline && errors.Is(err, credential.ErrKeyNotFound) {
			c.Detail += " (offline: give the issuer's controller document with --controller)"
		}
		return c, nil
	}
	c.Result = "ok"
	c.Detail = fmt.Sprintf("%s by %s", credential.Cryptosuite, res.VerificationMethod)
	if !res.Created.IsZero() {
		c.Detail += ", created " + res.Created.UTC().Format(time.RFC3339)
	}
	return c, res
}

// checkValidity checks validFrom/validUntil (VC 2.0) or issuanceDate/expirationDate (VC 1.1) against now.
func checkValidity(doc map[string]any, now time.Time) Check {
	c := Check{Name: "expiry"}
	from, err := dateField(doc, "validFrom", "issuanceDate")
	if err == nil {
		var until time.Time
		if until, err = dateField(doc, "validUntil", "expirationDate"); err == nil {
			switch {
			case !from.IsZero() && now.Before(from):
				c.Result, c.Failed, c.Detail = "not yet valid", true, "valid from "+from.UTC().Format(time.RFC3339)
			case !until.IsZero() && !now.Before(until):
				c.Result, c.Failed, c.Detail = "expired", true, "valid until "+until.UTC().Format(time.RFC3339)
			default:
				c.Result, c.Detail = "ok", describePeriod(from, until)
			}
			return c
		}
	}
	c.Result, c.Failed, c.Detail = "failed", true, err.Error()
	return c
}

func describePeriod(from, until time.Time) string {
	s := "no start date"
	if !from.IsZero() {
		s = "valid from " + from.UTC().Format(time.RFC3339)
	}
	if until.IsZero() {
		return s + ", does not expire"
	}
	return s + " until " + until.UTC().Format(time.RFC3339)
}

// dateField returns the first of the named fields that is present, parsed; zero when none is.
func dateField(doc map[string]any, names ...string) (time.Time, error) {
	for _, n := range names {
		v, ok := doc[n]
		if !ok {
			continue
		}
		s, _ := v.(string)
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05"} { // no zone: read as UTC
			if t, err := time.Parse(layout, s); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("%s %v is not a date-time", n, v)
	}
	return time.Time{}, nil
}

// checkStatus checks each Bitstring Status List revocation entry: the list credential is fetched, its own proof
// verified with the same resolver (its issuer must be the credential's), and the bit read. A list that cannot be
// fetched or verified fails the check: a verifier that passed when the list is unreachable could be fooled by
// blocking it. Offline, the check is skipped and said so.
func checkStatus(ctx context.Context, cred []byte, doc map[string]any, resolver credential.Resolver, fetcher Fetcher, now time.Time) Check {
	c := Check{Name: "status"}
	entries := asList(doc["credentialStatus"])
	if doc["credentialStatus"] == nil || len(entries) == 0 {
		c.Result, c.Detail = "none", "the credential has no credentialStatus, so it cannot be revoked"
		return c
	}
	if fetcher == nil {
		c.Result, c.Detail = "not checked", "offline"
		return c
	}
	var checked []string
	var unsupported []string
	for _, e := range entries {
		m, _ := e.(map[string]any)
		typ, _ := m["type"].(string)
		purpose, _ := m["statusPurpose"].(string)
		if typ != "BitstringStatusListEntry" || purpose != credential.StatusPurposeRevocation {
			unsupported = append(unsupported, fmt.Sprintf("%s/%s", typ, purpose))
			continue
		}
		listURL, _ := m["statusListCredential"].(string)
		revoked, err := revokedIn(ctx, cred, listURL, resolver, fetcher, now)
		if err != nil {
			c.Result, c.Failed, c.Detail = "failed", true, err.Error()
			return c
		}
		if revoked {
			c.Result, c.Failed, c.Detail = "revoked", true, fmt.Sprintf("bit %v of %s is set", m["statusListIndex"], listURL)
			// A reissue sets the bit too; the issuer names the replacement at the credential's own URL.
			if sf, ok := fetcher.(SuccessorFinder); ok {
				id, _ := doc["id"].(string)
				if next, err := sf.Successor(ctx, id); err == nil && next != "" {
					c.Result, c.Detail = "replaced", c.Detail+"; the issuer replaced this credential with a reissued one: "+next
				}
			}
			return c
		}
		checked = append(checked, fmt.Sprintf("bit %v of %s", m["statusListIndex"], listURL))
	}
	if len(checked) == 0 {
		c.Result, c.Detail = "not checked", "unsupported status entry "+strings.Join(unsupported, ", ")
		return c
	}
	c.Result, c.Detail = "ok", "not revoked: "+strings.Join(checked, ", ")
	if len(unsupported) > 0 {
		c.Detail += "; not checked: unsupported status entry " + strings.Join(unsupported, ", ")
	}
	return c
}

func revokedIn(ctx context.Context, cred []byte, listURL string, resolver credential.Resolver, fetcher Fetcher, now time.Time) (bool, error) {
	if listURL == "" {
		return false, errors.New("status entry has no statusListCredential")
	}
	list, err := fetcher.Fetch(ctx, listURL)
	if err != nil {
		return false, fmt.Errorf("status list: %w", err)
	}
	if _, err := credential.VerifyWithLimits(ctx, list, resolver, credential.DefaultLimits); err != nil {
		return false, fmt.Errorf("status list %s: proof: %w", listURL, err)
	}
	var listDoc map[string]any
	if err := json.Unmarshal(list, &listDoc); err != nil {
		return false, fmt.Errorf("status list %s: %w", listURL, err)
	}
	if until, err := dateField(listDoc, "validUntil", "expirationDate"); err != nil || (!until.IsZero() && !now.Before(until)) {
		return false, fmt.Errorf("status list %s has expired or has a bad validUntil", listURL)
	}
	// CheckStatus also requires the list to be the one the entry names and to come from the credential's issuer.
	return credential.CheckStatus(cred, list)
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	if v == nil {
		return nil
	}
	return []any{v}
}
