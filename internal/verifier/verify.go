package verifier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/badged/badged/internal/credential"
)

// Options say what Verify may use.
type Options struct {
	// Controllers are trusted controller documents (JSON) for issuers that cannot or should not be fetched.
	Controllers [][]byte
	// Offline forbids every network access: keys come from did:key and Controllers only (another key is "could
	// not check"); the status and, without Receipt, the anchor are "not checked".
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

// Results of a check besides the failures' own (revoked, replaced, expired, not yet valid, test).
const (
	ResultOK            = "ok"
	ResultFailed        = "failed"
	ResultNone          = "none"        // nothing to check: no credentialStatus, no anchor receipt served
	ResultNotChecked    = "not checked" // left out by the options: offline, no --rpc
	ResultCouldNotCheck = "could not check"
)

// Check is the outcome of one verification step.
type Check struct {
	Name   string // signature, issuer, expiry, status, or one of the anchor checks (receipt.go)
	Result string // ok, failed, revoked, replaced, expired, not yet valid, test, none, not checked, could not check
	Detail string // what was checked, or why it failed or could not be done
	// Failed: the check proves the credential invalid (a bad proof, revoked, expired, a digest or a transaction
	// that does not match).
	Failed bool
	// CouldNotCheck: a check the credential needs could not be done (a document or node unreachable, a key not
	// available offline): it proves nothing either way, and the credential is not shown valid.
	CouldNotCheck bool
}

// Verdict is what a Report amounts to.
type Verdict int

const (
	// VerdictValid: no check failed or could not be done; checks the options left out are "not checked".
	VerdictValid Verdict = iota
	// VerdictInvalid: at least one check proves the credential invalid (a test credential is invalid too).
	VerdictInvalid
	// VerdictCouldNotCheck: nothing proves it invalid, but a check it needs could not be done.
	VerdictCouldNotCheck
)

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

	receipt []byte // the anchor receipt checkAnchor read, for checkLog
}

// Test reports whether the credential comes from a test issuer.
func (r *Report) Test() bool { return r.TestIssuerOf != "" }

// Verdict returns the outcome: invalid when any check failed, whatever could not be checked beside it.
func (r *Report) Verdict() Verdict {
	v := VerdictValid
	for _, c := range r.Checks {
		switch {
		case c.Failed:
			return VerdictInvalid
		case c.CouldNotCheck:
			v = VerdictCouldNotCheck
		}
	}
	if len(r.Checks) == 0 {
		return VerdictCouldNotCheck
	}
	return v
}

// Valid reports whether the verdict is VerdictValid.
func (r *Report) Valid() bool { return r.Verdict() == VerdictValid }

// Verify reads a credential from input (JSON, or a baked PNG or SVG) and checks it. The error is only for input
// that holds no credential (wrapping ErrNotCredential) or bad options; an invalid credential gives a Report with
// failed checks, one that could not be fully checked a Report with checks marked CouldNotCheck.
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
	sig, res := checkSignature(ctx, cred, resolver)
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
	if c, ok := checkLog(cred, doc, rep, res); ok {
		rep.Checks = append(rep.Checks, c)
	}
	return rep, nil
}

// checkSignature checks the proof; the result (nil when it fails) tells whose key signed. A key that could not be
// had (offline without the issuer's document, a document that could not be fetched) is "could not check".
func checkSignature(ctx context.Context, cred []byte, resolver credential.Resolver) (Check, *credential.VerifyResult) {
	c := Check{Name: "signature"}
	res, err := credential.VerifyWithLimits(ctx, cred, resolver, credential.DefaultLimits)
	if err != nil {
		c.setError(err)
		return c, nil
	}
	c.Result = ResultOK
	c.Detail = fmt.Sprintf("%s by %s", credential.Cryptosuite, res.VerificationMethod)
	if !res.Created.IsZero() {
		c.Detail += ", created " + res.Created.UTC().Format(time.RFC3339)
	}
	return c, res
}

// setError records err as the check's outcome: "could not check" when it marks something unavailable
// (unavailable), else "failed".
func (c *Check) setError(err error) {
	c.Detail = err.Error()
	if isUnavailable(err) {
		c.Result, c.CouldNotCheck = ResultCouldNotCheck, true
		return
	}
	c.Result, c.Failed = ResultFailed, true
}

// unavailableError marks what a check needed but could not have: a document or a node that could not be reached
// or did not answer with what was asked, a key not available offline. It says nothing of the credential, unlike
// every other error a check meets, which is evidence against it.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string { return e.err.Error() }
func (e *unavailableError) Unwrap() error { return e.err }

func unavailable(err error) error { return &unavailableError{err: err} }

func isUnavailable(err error) bool {
	var u *unavailableError
	return errors.As(err, &u)
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
