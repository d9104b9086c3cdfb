package credential

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mr-tron/base58"

	"github.com/badged/badged/internal/errcode"
)

// The Data Integrity proof this package produces and checks (W3C vc-di-eddsa).
const (
	ProofType       = "DataIntegrityProof"
	Cryptosuite     = "eddsa-rdfc-2022"
	ProofPurpose    = "assertionMethod"
	createdLayout   = "2006-01-02T15:04:05Z"
	multibaseBase58 = 'z'
)

// ErrInvalidProof reports a credential whose proof is missing, malformed, or does not verify.
var ErrInvalidProof = errors.New("invalid proof")

// SignOptions are the proof options of Sign.
type SignOptions struct {
	VerificationMethod string    // URL of the Multikey, e.g. "https://issuer.example/issuers/1#key-1"
	Created            time.Time // proof creation time; truncated to seconds, written in UTC
	Limits             Limits    // zero value means DefaultLimits
}

// Sign adds an eddsa-rdfc-2022 DataIntegrityProof to doc (a map or JSON bytes; an existing proof is replaced)
// and returns the signed credential as JSON, the proof as a one-element array. Failures carry errcode CREDENTIAL_SERIALIZATION_FAILED, CREDENTIAL_CANONICALIZATION_FAILED,
// CREDENTIAL_HASH_FAILED or CREDENTIAL_SIGNING_FAILED.
func Sign(ctx context.Context, doc any, key ed25519.PrivateKey, opts SignOptions) ([]byte, error) {
	return sign(ctx, doc, key, opts, canonicalizeValue)
}

// sign is Sign with the canonicalization to use (the benchmarks compare the fast path with json-gold alone).
func sign(ctx context.Context, doc any, key ed25519.PrivateKey, opts SignOptions, canon canonicalizer) ([]byte, error) {
	m, err := toMap(doc)
	if err != nil {
		return nil, errcode.Wrap(errcode.CredentialSerializationFailed, "read credential", err)
	}
	if len(key) != ed25519.PrivateKeySize {
		return nil, errcode.New(errcode.CredentialSigningFailed, "issuer private key has the wrong size")
	}
	if opts.VerificationMethod == "" {
		return nil, errcode.New(errcode.CredentialSigningFailed, "verification method is empty")
	}
	lim := opts.Limits
	if lim == (Limits{}) {
		lim = DefaultLimits
	}
	delete(m, "proof")
	proof := map[string]any{
		"type":               ProofType,
		"cryptosuite":        Cryptosuite,
		"created":            opts.Created.UTC().Truncate(time.Second).Format(createdLayout),
		"verificationMethod": opts.VerificationMethod,
		"proofPurpose":       ProofPurpose,
	}
	data, err := hashData(ctx, m, proof, lim, canon)
	if err != nil {
		return nil, err
	}
	proof["proofValue"] = string(multibaseBase58) + base58.Encode(ed25519.Sign(key, data))
	// A one-element proof set: the 1EdTech OB 3.0 JSON Schema requires an array, and verifiers accept both.
	m["proof"] = []any{proof}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, errcode.Wrap(errcode.CredentialSerializationFailed, "marshal signed credential", err)
	}
	return out, nil
}

// canonicalizer canonicalizes a document made of encoding/json's types that is within the size limit.
type canonicalizer func(ctx context.Context, doc any, lim Limits) (string, error)

// hashData is the eddsa-rdfc-2022 "hashing" step: SHA-256 of the canonical proof configuration (which carries
// the document's @context) followed by SHA-256 of the canonical document without proof. Both maps hold only
// encoding/json's types (toMap, json.Unmarshal), so they are canonicalized as they are, with no round trip
// through bytes.
func hashData(ctx context.Context, unsecured, proofConfig map[string]any, lim Limits, canon canonicalizer) ([]byte, error) {
	cfg := make(map[string]any, len(proofConfig)+1)
	for k, v := range proofConfig {
		cfg[k] = v
	}
	cfg["@context"] = unsecured["@context"]
	canonCfg, err := canonicalizeMap(ctx, cfg, lim, canon)
	if err != nil {
		return nil, errcode.Wrap(errcode.CredentialCanonicalizationFailed, "canonicalize proof configuration", err)
	}
	canonDoc, err := canonicalizeMap(ctx, unsecured, lim, canon)
	if err != nil {
		return nil, errcode.Wrap(errcode.CredentialCanonicalizationFailed, "canonicalize credential", err)
	}
	if canonCfg == "" || canonDoc == "" {
		return nil, errcode.New(errcode.CredentialHashFailed, "canonical form is empty")
	}
	hc := sha256.Sum256([]byte(canonCfg))
	hd := sha256.Sum256([]byte(canonDoc))
	return append(hc[:], hd[:]...), nil
}

// canonicalizeMap applies Limits.MaxDocumentBytes to the JSON encoding of m, as CanonicalizeJSON does to its
// input, then canonicalizes m.
func canonicalizeMap(ctx context.Context, m map[string]any, lim Limits, canon canonicalizer) (string, error) {
	if lim.MaxDocumentBytes > 0 {
		n, ok := jsonLen(m)
		if !ok {
			b, err := json.Marshal(m)
			if err != nil {
				return "", fmt.Errorf("marshal document: %w", err)
			}
			n = len(b)
		}
		if err := lim.checkSize(n); err != nil {
			return "", err
		}
	}
	return canon(ctx, m, lim)
}

// VerifyResult tells what a successful Verify checked.
type VerifyResult struct {
	Issuer             string // issuer id of the credential
	VerificationMethod string
	Created            time.Time
	// TestIssuerOf is set when the key's controller document marks a test issuer: the credential is a test, not
	// a real one, whatever else holds (testissuer.go).
	TestIssuerOf string
}

// Verify checks the eddsa-rdfc-2022 proof of a credential (VC 1.1 or 2.0, from any issuer) with the public key
// the resolver returns for its verificationMethod, and that the key's controller is the credential's issuer.
// Errors wrap ErrInvalidProof, ErrUnknownContext, ErrUndefinedTerm, ErrCanonicalizationBudget,
// ErrDocumentTooLarge or a resolver error.
func Verify(ctx context.Context, credentialJSON []byte, resolver Resolver) (*VerifyResult, error) {
	return VerifyWithLimits(ctx, credentialJSON, resolver, DefaultLimits)
}

// VerifyWithLimits is Verify with explicit limits for the untrusted input.
func VerifyWithLimits(ctx context.Context, credentialJSON []byte, resolver Resolver, lim Limits) (*VerifyResult, error) {
	if lim.MaxDocumentBytes > 0 && len(credentialJSON) > lim.MaxDocumentBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrDocumentTooLarge, len(credentialJSON), lim.MaxDocumentBytes)
	}
	var doc map[string]any
	if err := json.Unmarshal(credentialJSON, &doc); err != nil {
		return nil, fmt.Errorf("%w: parse credential: %v", ErrInvalidProof, err)
	}
	proof, err := pickProof(doc["proof"])
	if err != nil {
		return nil, err
	}
	delete(doc, "proof")
	pv, _ := proof["proofValue"].(string)
	if len(pv) < 2 || pv[0] != multibaseBase58 {
		return nil, fmt.Errorf("%w: proofValue is not multibase base58btc", ErrInvalidProof)
	}
	sig, err := base58.Decode(pv[1:])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("%w: proofValue is not a 64-byte signature", ErrInvalidProof)
	}
	if p, _ := proof["proofPurpose"].(string); p != ProofPurpose {
		return nil, fmt.Errorf("%w: proofPurpose %q", ErrInvalidProof, p)
	}
	vm, _ := proof["verificationMethod"].(string)
	if vm == "" {
		return nil, fmt.Errorf("%w: verificationMethod missing", ErrInvalidProof)
	}
	var created time.Time
	if c, ok := proof["created"].(string); ok {
		if created, err = time.Parse(time.RFC3339, c); err != nil {
			return nil, fmt.Errorf("%w: created %q: %v", ErrInvalidProof, c, err)
		}
	}
	cfg, err := proofConfig(proof, doc, ErrInvalidProof, "document")
	if err != nil {
		return nil, err
	}
	data, err := hashData(ctx, doc, cfg, lim, canonicalizeValue)
	if err != nil {
		return nil, err
	}
	key, err := resolver.ResolveKey(ctx, vm)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", vm, err)
	}
	if !ed25519.Verify(key.PublicKey, data, sig) {
		return nil, fmt.Errorf("%w: signature does not verify", ErrInvalidProof)
	}
	iss := issuerID(doc["issuer"])
	if key.Controller != "" && iss != "" && key.Controller != iss {
		return nil, fmt.Errorf("%w: key controller %s is not the issuer %s", ErrInvalidProof, key.Controller, iss)
	}
	return &VerifyResult{Issuer: iss, VerificationMethod: vm, Created: created, TestIssuerOf: key.TestIssuerOf}, nil
}

// pickProof returns the eddsa-rdfc-2022 proof of a credential (a single proof or the first matching one of a set).
func pickProof(v any) (map[string]any, error) {
	var candidates []any
	switch p := v.(type) {
	case map[string]any:
		candidates = []any{p}
	case []any:
		candidates = p
	default:
		return nil, fmt.Errorf("%w: no proof", ErrInvalidProof)
	}
	for _, c := range candidates {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if m["type"] == ProofType && m["cryptosuite"] == Cryptosuite {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%w: no %s %s proof", ErrInvalidProof, ProofType, Cryptosuite)
}

// proofConfig is what a proof's signature covers besides the document: the proof without its proofValue and
// without its own @context, which must repeat the start of the document's (vc-di-eddsa 3.3.2 step 4); a mismatch
// is an error of kind invalid that names the document as docName.
func proofConfig(proof, doc map[string]any, invalid error, docName string) (map[string]any, error) {
	cfg := make(map[string]any, len(proof))
	for k, v := range proof {
		if k != "proofValue" {
			cfg[k] = v
		}
	}
	if pc, ok := cfg["@context"]; ok {
		if !contextPrefix(pc, doc["@context"]) {
			return nil, fmt.Errorf("%w: proof @context does not match the %s's", invalid, docName)
		}
		delete(cfg, "@context")
	}
	return cfg, nil
}

func contextPrefix(proofCtx, docCtx any) bool {
	p, d := asList(proofCtx), asList(docCtx)
	if len(p) > len(d) {
		return false
	}
	for i := range p {
		pb, _ := json.Marshal(p[i])
		db, _ := json.Marshal(d[i])
		if string(pb) != string(db) {
			return false
		}
	}
	return true
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

// IssuerID returns the id of a credential's issuer, given as a string or as an object with an id.
func IssuerID(v any) string { return issuerID(v) }

// issuerID returns the id of an issuer given as a string or as an object with an id.
func issuerID(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		s, _ := x["id"].(string)
		return s
	}
	return ""
}

// toMap turns a map or JSON bytes into a fresh generic JSON map, so that json-gold sees only JSON types and the
// caller's map is never modified.
func toMap(doc any) (map[string]any, error) {
	if m, ok := doc.(map[string]any); ok {
		if c, ok := copyJSON(m); ok {
			return c.(map[string]any), nil
		}
	}
	var b []byte
	switch d := doc.(type) {
	case []byte:
		b = d
	case json.RawMessage:
		b = d
	default:
		var err error
		if b, err = json.Marshal(d); err != nil {
			return nil, err
		}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("credential is not a JSON object")
	}
	return m, nil
}
