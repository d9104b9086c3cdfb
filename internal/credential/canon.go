package credential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/piprate/json-gold/ld"
)

// Limits bounds the work spent on one document, because verification canonicalizes untrusted input and RDFC-1.0
// has no bound of its own: a 1.5 KB hostile input has been measured to take seconds.
type Limits struct {
	MaxDocumentBytes int           // size of the JSON input
	MaxQuads         int           // RDF quads after JSON-LD expansion
	MaxBlankNodes    int           // distinct blank nodes
	MaxWork          int           // N-degree hashing steps and permutations
	Timeout          time.Duration // wall-clock budget per canonicalization, on top of the caller's context
}

// DefaultLimits fit Open Badges credentials with embedded data-URI images and status list credentials with room
// to spare; a regular OB 3.0 credential has about 40 quads and 1 blank node per proof.
var DefaultLimits = Limits{
	MaxDocumentBytes: 2 << 20,
	MaxQuads:         5000,
	MaxBlankNodes:    256,
	MaxWork:          20000,
	Timeout:          2 * time.Second,
}

// ErrDocumentTooLarge reports an input over Limits.MaxDocumentBytes.
var ErrDocumentTooLarge = errors.New("document too large")

// checkSize refuses a document of n bytes (its JSON encoding) over MaxDocumentBytes.
func (l Limits) checkSize(n int) error {
	if l.MaxDocumentBytes > 0 && n > l.MaxDocumentBytes {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrDocumentTooLarge, n, l.MaxDocumentBytes)
	}
	return nil
}

// withTimeout bounds ctx by Timeout, when set.
func (l Limits) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if l.Timeout > 0 {
		return context.WithTimeout(ctx, l.Timeout)
	}
	return ctx, func() {}
}

// ErrMalformedJSONLD reports a document the JSON-LD processor could not process at all.
var ErrMalformedJSONLD = errors.New("malformed json-ld document")

// ErrUndefinedTerm reports a property, type or identifier that does not expand to an absolute IRI. JSON-LD would
// drop it silently, leaving it outside the signature; we refuse instead.
var ErrUndefinedTerm = errors.New("json-ld term does not expand to an absolute IRI")

// Canonicalize returns the RDFC-1.0 (URDNA2015) canonical N-Quads of a JSON-LD document, using only the
// embedded contexts. Undefined terms, unknown contexts and inputs over the limits are errors.
func Canonicalize(ctx context.Context, doc map[string]any, lim Limits) (string, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("marshal document: %w", err)
	}
	return CanonicalizeJSON(ctx, b, lim)
}

// CanonicalizeJSON is Canonicalize for a JSON document in bytes.
func CanonicalizeJSON(ctx context.Context, doc []byte, lim Limits) (string, error) {
	if err := lim.checkSize(len(doc)); err != nil {
		return "", err
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return "", fmt.Errorf("parse document: %w", err)
	}
	return canonicalizeValue(ctx, v, lim)
}

// canonicalizeValue canonicalizes a document already decoded by encoding/json (or made of the same types) and
// within the size limit: the fast path when it covers the document, json-gold otherwise. Both end in the same
// RDFC-1.0 code with the same quad, blank-node, work and time limits.
func canonicalizeValue(ctx context.Context, v any, lim Limits) (string, error) {
	ctx, cancel := lim.withTimeout(ctx)
	defer cancel()
	if m, ok := v.(map[string]any); ok {
		quads, err := fastQuads(ctx, m)
		if err == nil {
			return canonicalizeQuads(ctx, quads, lim)
		}
		if !errors.Is(err, errNotFast) {
			return "", err
		}
	}
	jsonGoldRuns.Add(1)
	return canonicalizeJSONGold(ctx, v, lim)
}

// jsonGoldRuns counts the documents the fast path left to json-gold (tests check that signing never does).
var jsonGoldRuns atomic.Int64

// canonicalizeJSONGold converts the document to RDF with json-gold. Its expansion has no cancellation: it runs
// aside so that the deadline (set by the caller) still returns on time, stops at its next checkpoint once the
// deadline has passed, and holds one of the few slots of the gate until it does (goldstop.go).
func canonicalizeJSONGold(ctx context.Context, v any, lim Limits) (string, error) {
	if err := acquireGold(ctx); err != nil {
		return "", fmt.Errorf("json-ld expansion: %w", err)
	}
	type result struct {
		ds  *ld.RDFDataset
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer releaseGold()
		// json-gold panics on some hostile documents (a nil map in its node map generation, found by
		// TestExchange_Fuzz); on this goroutine a panic would end the process, so it becomes the document's error.
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("%w: the JSON-LD processor failed on it: %v", ErrMalformedJSONLD, p)}
			}
		}()
		ds, err := toDataset(ctx, v)
		done <- result{ds, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return "", fmt.Errorf("json-ld expansion: %w", ctx.Err())
	}
	if r.err != nil {
		return "", r.err
	}
	return canonicalizeDataset(ctx, r.ds, lim)
}

// toDataset expands the document in safe mode and converts it to RDF, stopping with the error of ctx at the
// first checkpoint after ctx is done.
func toDataset(ctx context.Context, doc any) (*ld.RDFDataset, error) {
	loader := &embeddedLoader{ctx: ctx}
	opts := ld.NewJsonLdOptions("")
	opts.DocumentLoader = loader
	opts.SafeMode = true
	opts.ProcessingMode = ld.JsonLd_1_1
	expanded, err := ld.NewJsonLdProcessor().Expand(withDocumentCheckpoints(doc), opts)
	if err != nil {
		if loader.missing != "" {
			return nil, fmt.Errorf("%w: %s", ErrUnknownContext, loader.missing)
		}
		if loader.err != nil {
			return nil, fmt.Errorf("json-ld expansion: %w", loader.err)
		}
		var jerr *ld.JsonLdError
		if errors.As(err, &jerr) && jerr.Code == ld.InvalidProperty {
			return nil, fmt.Errorf("%w: %v", ErrUndefinedTerm, err)
		}
		return nil, fmt.Errorf("json-ld expansion: %w", err)
	}
	if err := checkExpanded(expanded, ""); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("json-ld expansion: %w", err)
	}
	ds, err := ld.NewJsonLdApi().ToRDF(expanded, opts)
	if err != nil {
		return nil, fmt.Errorf("json-ld to rdf: %w", err)
	}
	return ds, nil
}

var absoluteIRI = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*:`)

// checkExpanded walks an expanded document and rejects what toRDF would drop without a word: relative @id and
// @type values, and keys that are neither keywords nor absolute IRIs.
func checkExpanded(v any, key string) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := checkExpanded(e, key); err != nil {
				return err
			}
		}
	case map[string]any:
		_, isValue := x["@value"]
		for k, e := range x {
			switch k {
			case "@id":
				if s, ok := e.(string); ok && !isIRIOrBlank(s) {
					return fmt.Errorf("%w: @id %q", ErrUndefinedTerm, s)
				}
			case "@type":
				for _, t := range stringsOf(e) {
					if isValue && t == "@json" {
						continue
					}
					if !isIRIOrBlank(t) {
						return fmt.Errorf("%w: type %q", ErrUndefinedTerm, t)
					}
				}
			case "@value", "@language", "@direction", "@index":
			default:
				if !strings.HasPrefix(k, "@") && !absoluteIRI.MatchString(k) {
					return fmt.Errorf("%w: property %q", ErrUndefinedTerm, k)
				}
				if err := checkExpanded(e, k); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func isIRIOrBlank(s string) bool {
	return strings.HasPrefix(s, "_:") || absoluteIRI.MatchString(s)
}

func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
