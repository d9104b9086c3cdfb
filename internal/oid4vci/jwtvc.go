package oid4vci

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// JWTClaims adds the registered claims OB 3.0 §8.2.4 asks of a VC-JWT to the credential, whose members are the
// payload itself: iss (the issuer's id), jti (the credential's id), nbf (validFrom), sub (credentialSubject.id),
// exp (validUntil, when the credential expires).
func JWTClaims(cred map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(cred)+5)
	for k, v := range cred {
		out[k] = v
	}
	iss := issuerID(cred["issuer"])
	if iss == "" {
		return nil, errors.New("the credential names no issuer id")
	}
	out["iss"] = iss
	if id, _ := cred["id"].(string); id != "" {
		out["jti"] = id
	}
	from, err := unixOf(cred["validFrom"])
	if err != nil {
		return nil, fmt.Errorf("validFrom: %w", err)
	}
	out["nbf"] = from
	if _, ok := cred["validUntil"]; ok {
		until, err := unixOf(cred["validUntil"])
		if err != nil {
			return nil, fmt.Errorf("validUntil: %w", err)
		}
		out["exp"] = until
	}
	if cs, _ := cred["credentialSubject"].(map[string]any); cs != nil {
		if sub, _ := cs["id"].(string); sub != "" {
			out["sub"] = sub
		}
	}
	return out, nil
}

// SignJWT signs a credential as a VC-JWT (typ JWT) with an Ed25519 (EdDSA) or RSA (RS256) key; kid is the URL of
// the verification key, and the public key rides along as jwk, as OB 3.0 allows.
func SignJWT(cred map[string]any, key crypto.Signer, kid string) (string, error) {
	claims, err := JWTClaims(cred)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	var alg jose.SignatureAlgorithm
	switch key.(type) {
	case ed25519.PrivateKey:
		alg = jose.EdDSA
	case *rsa.PrivateKey:
		alg = jose.RS256
	default:
		return "", fmt.Errorf("no JWT algorithm for a %T", key)
	}
	opts := (&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), kid).
		WithHeader(jose.HeaderKey("jwk"), jose.JSONWebKey{Key: key.Public()})
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

// JWK is the public JWK of an issuer key with its kid and alg, as the issuer's JWKS publishes it.
func JWK(pub crypto.PublicKey, kid string) (jose.JSONWebKey, error) {
	k := jose.JSONWebKey{Key: pub, KeyID: kid, Use: "sig"}
	switch pub.(type) {
	case ed25519.PublicKey:
		k.Algorithm = string(jose.EdDSA)
	case *rsa.PublicKey:
		k.Algorithm = string(jose.RS256)
	default:
		return k, fmt.Errorf("no JWK for a %T", pub)
	}
	return k, nil
}

// Thumbprint is the RFC 7638 SHA-256 thumbprint of a public key, base64url: the last segment of a key's kid.
func Thumbprint(pub crypto.PublicKey) (string, error) {
	b, err := (&jose.JSONWebKey{Key: pub}).Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return b64(b), nil
}

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

func unixOf(v any) (int64, error) {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, err
	}
	return t.Unix(), nil
}
