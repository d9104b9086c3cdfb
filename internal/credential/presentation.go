package credential

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mr-tron/base58"
)

// Proofs a DIDAuthentication presentation may carry. The DCC Learner Credential Wallet signs with
// Ed25519Signature2020 (its @digitalcredentials/ed25519-signature-2020 suite); Data Integrity wallets sign with
// eddsa-rdfc-2022. Both hash the same way (SHA-256 of the canonical proof options with the document's @context,
// then of the canonical document) and sign with Ed25519, so one check serves both.
const (
	ProofTypeEd25519Sig2020 = "Ed25519Signature2020"
	AuthenticationPurpose   = "authentication"
)

// PresentationLimits bound the work on a holder's presentation: a DIDAuthentication presentation has no
// credentials and a dozen quads.
var PresentationLimits = Limits{
	MaxDocumentBytes: 32 << 10,
	MaxQuads:         200,
	MaxBlankNodes:    16,
	MaxWork:          2000,
	Timeout:          time.Second,
}

// ErrPresentation reports a presentation that is not a signed DIDAuthentication presentation of its holder.
var ErrPresentation = errors.New("invalid presentation")

// Authentication is what a verified DIDAuthentication presentation proves: the holder (a did:key) signed over
// this challenge and domain. The caller checks challenge and domain against what it asked for.
type Authentication struct {
	Holder             string
	VerificationMethod string
	ProofType          string // Ed25519Signature2020 or DataIntegrityProof (eddsa-rdfc-2022)
	Challenge          string
	Domain             string // "" when the proof names none
}

// VerifyAuthentication checks a presentation (JSON) proving control of its holder's did:key: type
// VerifiablePresentation without credentials, holder a did:key of an Ed25519 key, exactly one proof with proofPurpose authentication,
// of type Ed25519Signature2020 or DataIntegrityProof eddsa-rdfc-2022, whose verificationMethod is the holder's key,
// and whose signature verifies. Errors wrap ErrPresentation, ErrUnknownContext, ErrUndefinedTerm,
// ErrCanonicalizationBudget or ErrDocumentTooLarge; any of them means the presentation is refused.
func VerifyAuthentication(ctx context.Context, vp []byte, lim Limits) (*Authentication, error) {
	if lim.MaxDocumentBytes > 0 && len(vp) > lim.MaxDocumentBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrDocumentTooLarge, len(vp), lim.MaxDocumentBytes)
	}
	var doc map[string]any
	if err := json.Unmarshal(vp, &doc); err != nil || doc == nil {
		return nil, fmt.Errorf("%w: not a JSON object", ErrPresentation)
	}
	if !slices.Contains(stringsOf(doc["type"]), "VerifiablePresentation") {
		return nil, fmt.Errorf("%w: type is not VerifiablePresentation", ErrPresentation)
	}
	// DIDAuthentication proves control of a key and nothing else: credentials in it would be signed data the
	// exchange never reads (and more to canonicalize).
	if vc, ok := doc["verifiableCredential"]; ok && !isEmptyList(vc) {
		return nil, fmt.Errorf("%w: a DIDAuthentication presentation carries no credentials", ErrPresentation)
	}
	holder, _ := doc["holder"].(string)
	if !strings.HasPrefix(holder, "did:key:") {
		return nil, fmt.Errorf("%w: holder must be the did:key of the wallet's Ed25519 key", ErrPresentation)
	}
	proof, err := singleProof(doc["proof"])
	if err != nil {
		return nil, err
	}
	delete(doc, "proof")
	a := &Authentication{Holder: holder}
	a.ProofType, _ = proof["type"].(string)
	switch cs, _ := proof["cryptosuite"].(string); {
	case a.ProofType == ProofTypeEd25519Sig2020 && cs == "":
	case a.ProofType == ProofType && cs == Cryptosuite:
	default:
		return nil, fmt.Errorf("%w: proof type %q (cryptosuite %q); accepted: %s, or %s with %s", ErrPresentation,
			truncateString(a.ProofType, 64), truncateString(cs, 64), ProofTypeEd25519Sig2020, ProofType, Cryptosuite)
	}
	if p, _ := proof["proofPurpose"].(string); p != AuthenticationPurpose {
		return nil, fmt.Errorf("%w: proofPurpose must be %s", ErrPresentation, AuthenticationPurpose)
	}
	a.Challenge, _ = proof["challenge"].(string)
	a.Domain, _ = proof["domain"].(string)
	if a.Challenge == "" {
		return nil, fmt.Errorf("%w: the proof carries no challenge", ErrPresentation)
	}
	a.VerificationMethod, _ = proof["verificationMethod"].(string)
	key, err := DIDKeyResolver{}.ResolveKey(ctx, a.VerificationMethod)
	if err != nil || key.Controller != holder {
		return nil, fmt.Errorf("%w: verificationMethod must be the holder's did:key (%s#…)", ErrPresentation, holder)
	}
	pv, _ := proof["proofValue"].(string)
	if len(pv) < 2 || pv[0] != multibaseBase58 {
		return nil, fmt.Errorf("%w: proofValue is not multibase base58btc", ErrPresentation)
	}
	sig, err := base58.Decode(pv[1:])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("%w: proofValue is not a 64-byte signature", ErrPresentation)
	}
	cfg, err := proofConfig(proof, doc, ErrPresentation, "presentation")
	if err != nil {
		return nil, err
	}
	data, err := hashData(ctx, doc, cfg, lim, canonicalizeValue)
	if err != nil {
		return nil, err
	}
	if !ed25519.Verify(key.PublicKey, data, sig) {
		return nil, fmt.Errorf("%w: signature does not verify with the holder's key", ErrPresentation)
	}
	return a, nil
}

// singleProof returns the one proof of a presentation (an object or a one-element set).
func singleProof(v any) (map[string]any, error) {
	if l, ok := v.([]any); ok {
		if len(l) != 1 {
			return nil, fmt.Errorf("%w: exactly one proof is expected, got %d", ErrPresentation, len(l))
		}
		v = l[0]
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the presentation is not signed (no proof)", ErrPresentation)
	}
	return m, nil
}

func truncateString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 0
}
