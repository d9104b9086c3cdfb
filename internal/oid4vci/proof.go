package oid4vci

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// ProofType is the typ of a key proof JWT (OID4VCI 1.0 Appendix F.1).
const ProofType = "openid4vci-proof+jwt"

// MaxProofBytes bounds a proof JWT: a did:jwk kid of a P-256 key and a signature are well under 2 KiB.
const MaxProofBytes = 8 << 10

// Ed25519 is the fully-specified JOSE algorithm of Ed25519 signatures (RFC 9864), which deprecates the polymorphic
// EdDSA for new use: the same signature, named by its curve. go-jose does not know it, so VerifyProof checks it.
const Ed25519 = jose.SignatureAlgorithm("Ed25519")

// ProofAlgs are the signature algorithms accepted from holders (their keys: Ed25519, P-256), in the order the
// issuer metadata advertises them (proof_signing_alg_values_supported): the fully-specified one first, so a wallet
// that takes the first it knows picks it.
var ProofAlgs = []jose.SignatureAlgorithm{Ed25519, jose.EdDSA, jose.ES256}

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
		return nil, Errorf(InvalidProof, "the proof is not a compact JWS signed with Ed25519, EdDSA or ES256: %v", err)
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
	var payload []byte
	if jose.SignatureAlgorithm(h.Algorithm) == Ed25519 {
		payload, err = verifyEd25519(token, jws, key)
	} else {
		payload, err = jws.Verify(key)
	}
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

// verifyEd25519 checks a compact JWS whose alg is Ed25519 (RFC 9864), as jws.Verify checks the algorithms go-jose
// knows: the key must be an Ed25519 key, no critical header may be asked for (go-jose's own check refuses those it
// does not implement, and this one implements none), and the signature is Ed25519's over the JWS signing input
// (RFC 7515 §5.2), exactly as EdDSA's. It returns the payload.
func verifyEd25519(token string, jws *jose.JSONWebSignature, key any) ([]byte, error) {
	pub, ok := key.(ed25519.PublicKey)
	if !ok {
		return nil, errors.New("alg Ed25519 needs an Ed25519 key")
	}
	if _, ok := jws.Signatures[0].Protected.ExtraHeaders["crit"]; ok {
		return nil, errors.New("no critical header is supported")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("not a compact JWS")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		return nil, errors.New("the signature does not verify")
	}
	return jws.UnsafePayloadWithoutVerification(), nil
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
