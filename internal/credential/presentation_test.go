package credential

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mr-tron/base58"
	"github.com/stretchr/testify/require"
)

// testdata/didauth-presentations.json: DIDAuthentication presentations signed by Digital Bazaar's libraries
// (@digitalbazaar/vc 7.3.0 with @digitalbazaar/ed25519-signature-2020 5.4.0, as the DCC Learner Credential Wallet
// signs, under the VC 1.1 and 2.0 contexts; and with @digitalbazaar/eddsa-rdfc-2022-cryptosuite 1.3.0), for a
// did:key from the seed 32×0x07, challenge "c-123", domain "https://badges.example".
func didAuthVectors(t *testing.T) map[string]map[string]any {
	t.Helper()
	raw, err := os.ReadFile("testdata/didauth-presentations.json")
	require.NoError(t, err)
	var v map[string]map[string]any
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

func TestVerifyAuthentication_IndependentSignatures(t *testing.T) {
	for name, vp := range didAuthVectors(t) {
		t.Run(name, func(t *testing.T) {
			raw, _ := json.Marshal(vp)
			a, err := VerifyAuthentication(context.Background(), raw, PresentationLimits)
			require.NoError(t, err)
			require.Equal(t, "did:key:z6MkvDqGT54cXesYGvABpF1UapVNwjCqRcafi4Px6Thv5T3Z", a.Holder)
			require.Equal(t, "c-123", a.Challenge)
			require.Equal(t, "https://badges.example", a.Domain)
			require.True(t, strings.HasPrefix(a.VerificationMethod, a.Holder+"#"))
		})
	}
}

func TestVerifyAuthentication_Refusals(t *testing.T) {
	base := didAuthVectors(t)["ed25519-2020-v1"]
	other := ed25519.NewKeyFromSeed(make([]byte, 32))
	otherDID := "did:key:" + EncodeMultikey(other.Public().(ed25519.PublicKey))
	cases := map[string]func(vp, proof map[string]any){
		"challenge changed": func(_, p map[string]any) { p["challenge"] = "c-124" },
		"domain changed":    func(_, p map[string]any) { p["domain"] = "https://evil.example" },
		"no challenge":      func(_, p map[string]any) { delete(p, "challenge") },
		"unsigned":          func(vp, _ map[string]any) { delete(vp, "proof") },
		"assertion purpose": func(_, p map[string]any) { p["proofPurpose"] = "assertionMethod" },
		"other holder":      func(vp, _ map[string]any) { vp["holder"] = otherDID },
		"other key named": func(_, p map[string]any) {
			p["verificationMethod"] = otherDID + "#" + strings.TrimPrefix(otherDID, "did:key:")
		},
		"https holder":       func(vp, _ map[string]any) { vp["holder"] = "https://badges.example/me" },
		"not a presentation": func(vp, _ map[string]any) { vp["type"] = []any{"VerifiableCredential"} },
		"unknown proof type": func(_, p map[string]any) { p["type"] = "Ed25519Signature2018" },
		"bad proofValue":     func(_, p map[string]any) { p["proofValue"] = "z" + base58.Encode(make([]byte, 64)) },
		"undefined term":     func(vp, _ map[string]any) { vp["extra"] = "unsigned data" },
		"unknown context": func(vp, _ map[string]any) {
			vp["@context"] = append(vp["@context"].([]any), "https://evil.example/ctx")
		},
		"two proofs":           func(vp, p map[string]any) { vp["proof"] = []any{p, p} },
		"carries a credential": func(vp, _ map[string]any) { vp["verifiableCredential"] = []any{map[string]any{"id": "urn:x"}} },
		"proof is a string":    func(vp, _ map[string]any) { vp["proof"] = "z123" },
		"signed by other key":  func(vp, p map[string]any) { signAuth(t, vp, p, other, otherDID) },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			b, _ := json.Marshal(base)
			var vp map[string]any
			require.NoError(t, json.Unmarshal(b, &vp))
			mutate(vp, vp["proof"].(map[string]any))
			raw, _ := json.Marshal(vp)
			_, err := VerifyAuthentication(context.Background(), raw, PresentationLimits)
			require.Error(t, err)
		})
	}
	t.Run("too large", func(t *testing.T) {
		_, err := VerifyAuthentication(context.Background(), []byte(`{"x":"`+strings.Repeat("a", 1<<20)+`"}`), PresentationLimits)
		require.ErrorIs(t, err, ErrDocumentTooLarge)
	})
}

// signAuth re-signs vp's proof with key, keeping the proof naming the holder's key: the signature cannot verify.
func signAuth(t *testing.T, vp, proof map[string]any, key ed25519.PrivateKey, _ string) {
	t.Helper()
	doc := map[string]any{}
	for k, v := range vp {
		if k != "proof" {
			doc[k] = v
		}
	}
	cfg := map[string]any{}
	for k, v := range proof {
		if k != "proofValue" {
			cfg[k] = v
		}
	}
	data, err := hashData(context.Background(), doc, cfg, PresentationLimits, canonicalizeValue)
	require.NoError(t, err)
	proof["proofValue"] = "z" + base58.Encode(ed25519.Sign(key, data))
}

// TestCanonicalize_ProcessorPanicIsAnError: json-gold panics on a presentation whose verifiableCredential is a
// number (found by the exchange's fuzz test); the panic, on the expansion's own goroutine, would end the process.
func TestCanonicalize_ProcessorPanicIsAnError(t *testing.T) {
	vp := didAuthVectors(t)["ed25519-2020-v1"]
	vp["verifiableCredential"] = -1.5
	delete(vp, "proof")
	_, err := Canonicalize(context.Background(), vp, DefaultLimits)
	require.ErrorIs(t, err, ErrMalformedJSONLD)
}
