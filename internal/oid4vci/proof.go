package oid4vci

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// ProofType is the typ of a key proof JWT (OID4VCI 1.0 Appendix F.1).
const ProofType = "openid4vci-proof+jwt"

// MaxProofBytes bounds a proof JWT: a did:jwk kid of a P-256 key and a signature are well under 2 KiB.
const MaxProofBytes = 8 << 10

// ProofAlgs are the signature algorithms accepted from holders (their keys: Ed25519, P-256).
var ProofAlgs = []jose.SignatureAlgorithm{jose.EdDSA, jose.ES256}

// ProofCheck is what a proof must match.
type ProofCheck struct {
	Audience string        // the credential issuer identifier
	Now      time.Time     // the server's time
	MaxAge   time.Duration // how old iat may be
	MaxSkew  time.Duration // how far in the future iat may be
}

// Proof is a verified proof: the holder's DID (did:key or did:jwk as named; a bare jwk becomes its did:jwk) and the
// nonce it carries, which the caller must consume (single use) before issuing.
type Proof struct {
	HolderDID string
	Nonce     string
}

// VerifyProof checks a jwt key proof. Every refusal is invalid_proof, except a proof without a nonce, which is
// invalid_nonce (the wallet fetches one and retries).
func VerifyProof(token string, c ProofCheck) (*Proof, *Error) {
	if len(token) > MaxProofBytes {
		return nil, Errorf(InvalidProof, "the proof JWT is %d bytes; at most %d are accepted", len(token), MaxProofBytes)
	}
	jws, err := jose.ParseSigned(token, ProofAlgs)
	if err != nil {
		return nil, Errorf(InvalidProof, "the proof is not a compact JWS signed with EdDSA or ES256: %v", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, Errorf(InvalidProof, "the proof must carry one signature")
	}
	h := jws.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != ProofType {
		return nil, Errorf(InvalidProof, "the proof's typ must be %q", ProofType)
	}
	if _, ok := h.ExtraHeaders["x5c"]; ok {
		return nil, Errorf(InvalidProof, "x5c is not accepted; name the key by kid (did:key, did:jwk) or jwk")
	}
	var holder string
	var key any
	switch {
	case h.KeyID != "" && h.JSONWebKey != nil:
		return nil, Errorf(InvalidProof, "the proof names its key twice (kid and jwk); name it once")
	case h.KeyID != "":
		did, k, err := ResolveDID(h.KeyID)
		if err != nil {
			return nil, Errorf(InvalidProof, "kid: %v", err)
		}
		holder, key = did, k
	case h.JSONWebKey != nil:
		k, err := PublicKeyOf(h.JSONWebKey)
		if err != nil {
			return nil, Errorf(InvalidProof, "jwk: %v", err)
		}
		did, err := DIDJWK(k)
		if err != nil {
			return nil, Errorf(InvalidProof, "jwk: %v", err)
		}
		holder, key = did, k
	default:
		return nil, Errorf(InvalidProof, "the proof names no key (kid as did:key or did:jwk, or jwk)")
	}
	payload, err := jws.Verify(key)
	if err != nil {
		return nil, Errorf(InvalidProof, "the proof's signature does not verify with the key it names")
	}
	var claims struct {
		Aud   json.RawMessage `json:"aud"`
		Iat   *json.Number    `json:"iat"`
		Nonce *string         `json:"nonce"`
	}
	dec := json.NewDecoder(strings.NewReader(string(payload)))
	dec.UseNumber()
	if err := dec.Decode(&claims); err != nil {
		return nil, Errorf(InvalidProof, "the proof's payload is not a JSON object")
	}
	if !audienceIs(claims.Aud, c.Audience) {
		return nil, Errorf(InvalidProof, "the proof's aud must be the credential issuer %s", c.Audience)
	}
	if claims.Iat == nil {
		return nil, Errorf(InvalidProof, "the proof has no iat")
	}
	iat, err := claims.Iat.Float64()
	if err != nil {
		return nil, Errorf(InvalidProof, "the proof's iat is not a number")
	}
	at := time.Unix(int64(iat), 0)
	if at.Before(c.Now.Add(-c.MaxAge)) || at.After(c.Now.Add(c.MaxSkew)) {
		return nil, Errorf(InvalidProof, "the proof's iat %s is not fresh (server time %s)", at.UTC().Format(time.RFC3339), c.Now.UTC().Format(time.RFC3339))
	}
	if claims.Nonce == nil || *claims.Nonce == "" {
		return nil, Errorf(InvalidNonce, "the proof carries no nonce; get one from the nonce endpoint")
	}
	if len(*claims.Nonce) > 256 {
		return nil, Errorf(InvalidNonce, "the nonce is not one this issuer gave")
	}
	return &Proof{HolderDID: holder, Nonce: *claims.Nonce}, nil
}

// audienceIs: aud is the issuer identifier, as a string (or a one-element array of it).
func audienceIs(raw json.RawMessage, want string) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s == want
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return len(list) == 1 && list[0] == want
	}
	return false
}

// String is for logs.
func (p *Proof) String() string { return fmt.Sprintf("proof of %s", p.HolderDID) }
