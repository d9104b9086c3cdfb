package oid4vci

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/require"
)

const testAud = "https://badges.example/issuers/0b7c6f5e-64a3-4b8e-9d2a-6a9f2f1e0c11"

// compactJWS signs header and claims by hand, as a wallet's JOSE library does: base64url of each, and sign over
// "header.payload" (RFC 7515 §5.1), so any alg name can be tried whatever go-jose knows.
func compactJWS(t *testing.T, header, claims map[string]any, sign func([]byte) []byte) string {
	t.Helper()
	h, err := json.Marshal(header)
	require.NoError(t, err)
	p, err := json.Marshal(claims)
	require.NoError(t, err)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p)
	return input + "." + base64.RawURLEncoding.EncodeToString(sign([]byte(input)))
}

// TestVerifyProof_Ed25519: a key proof signed with the fully-specified alg Ed25519 (RFC 9864) verifies like one
// signed EdDSA, its key named by a did:key kid or a jwk; the alg with another key type, a critical header, a
// signature by another key or over another payload are refused as invalid_proof.
func TestVerifyProof_Ed25519(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	_, other, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	did, err := DIDKey(pub)
	require.NoError(t, err)
	kid := did + "#" + strings.TrimPrefix(did, "did:key:")
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ecDID, err := DIDKey(&ec.PublicKey)
	require.NoError(t, err)
	jwk, err := json.Marshal(jose.JSONWebKey{Key: pub})
	require.NoError(t, err)
	var jwkObj map[string]any
	require.NoError(t, json.Unmarshal(jwk, &jwkObj))

	now := time.Now()
	claims := map[string]any{"aud": testAud, "iat": now.Unix(), "nonce": "n-1"}
	check := ProofCheck{Audience: testAud, Now: now, MaxAge: 5 * time.Minute, MaxSkew: time.Minute}
	signBy := func(k ed25519.PrivateKey) func([]byte) []byte {
		return func(b []byte) []byte { return ed25519.Sign(k, b) }
	}
	header := func(extra map[string]any) map[string]any {
		h := map[string]any{"alg": "Ed25519", "typ": ProofType, "kid": kid}
		for k, v := range extra {
			if v == nil {
				delete(h, k)
			} else {
				h[k] = v
			}
		}
		return h
	}

	p, perr := VerifyProof(compactJWS(t, header(nil), claims, signBy(priv)), check)
	require.Nil(t, perr)
	require.Equal(t, did, p.HolderDID)
	require.Equal(t, "n-1", p.Nonce)

	p, perr = VerifyProof(compactJWS(t, header(map[string]any{"kid": nil, "jwk": jwkObj}), claims, signBy(priv)), check)
	require.Nil(t, perr)
	wantJWK, err := DIDJWK(pub)
	require.NoError(t, err)
	require.Equal(t, wantJWK, p.HolderDID, "a jwk is bound as its did:jwk")

	p, perr = VerifyProof(compactJWS(t, header(map[string]any{"alg": "EdDSA"}), claims, signBy(priv)), check)
	require.Nil(t, perr, "EdDSA, the same signature, still verifies")
	require.Equal(t, did, p.HolderDID)

	for name, token := range map[string]string{
		"signed by another key": compactJWS(t, header(nil), claims, signBy(other)),
		"a P-256 key named":     compactJWS(t, header(map[string]any{"kid": ecDID + "#" + strings.TrimPrefix(ecDID, "did:key:")}), claims, signBy(priv)),
		"a critical header":     compactJWS(t, header(map[string]any{"crit": []string{"b64"}, "b64": false}), claims, signBy(priv)),
		"another payload": func() string {
			good := strings.Split(compactJWS(t, header(nil), claims, signBy(priv)), ".")
			forged := strings.Split(compactJWS(t, header(nil), map[string]any{"aud": testAud, "iat": now.Unix(), "nonce": "n-2"}, signBy(other)), ".")
			return good[0] + "." + forged[1] + "." + good[2]
		}(),
		"alg none":         compactJWS(t, header(map[string]any{"alg": "none"}), claims, func([]byte) []byte { return nil }),
		"an unknown alg":   compactJWS(t, header(map[string]any{"alg": "Ed448"}), claims, signBy(priv)),
		"lower-case alg":   compactJWS(t, header(map[string]any{"alg": "ed25519"}), claims, signBy(priv)),
		"a JSON-form JWS":  `{"payload":"e30","protected":"eyJhbGciOiJFZDI1NTE5In0","signature":"AA"}`,
		"an empty payload": compactJWS(t, header(nil), nil, signBy(priv)),
	} {
		t.Run(name, func(t *testing.T) {
			_, perr := VerifyProof(token, check)
			require.NotNil(t, perr)
			require.Equal(t, InvalidProof, perr.Code, perr.Description)
		})
	}
}
