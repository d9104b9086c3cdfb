package credential

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/mr-tron/base58"
	"github.com/stretchr/testify/require"
)

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	require.NoError(tb, err)
	return b
}

func mustHex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(tb, err)
	return b
}

// mustSecretMultikey decodes an Ed25519 secret key in Multikey form (multicodec 0x8026 + 32-byte seed).
func mustSecretMultikey(tb testing.TB, s string) ed25519.PrivateKey {
	tb.Helper()
	b, err := base58.Decode(s[1:])
	require.NoError(tb, err)
	require.Len(tb, b, 34)
	require.Equal(tb, []byte{0x80, 0x26}, b[:2])
	return ed25519.NewKeyFromSeed(b[2:])
}

func mustTime(tb testing.TB, s string) time.Time {
	tb.Helper()
	v, err := time.Parse(time.RFC3339, s)
	require.NoError(tb, err)
	return v
}

// vector is a published eddsa-rdfc-2022 example: the signed credential, the key, and the intermediate values.
type vector struct {
	name       string
	signed     []byte
	key        ed25519.PrivateKey
	publicKey  string // Multikey of the key
	proofHash  string // SHA-256 of the canonical proof configuration, hex
	docHash    string // SHA-256 of the canonical document, hex
	controller []byte // controller document to verify with; nil means did:key
}

func vectors(tb testing.TB) []vector {
	tb.Helper()
	return []vector{
		{
			// 1EdTech OB 3.0 spec, appendix "Linked Data Proof Test Vector for Open Badges 3.0"; key pair given
			// there in hex (seed = first 32 bytes of the private key).
			name:       "1EdTech OB 3.0",
			signed:     mustRead(tb, "testdata/1edtech-obv3p0-signed.json"),
			key:        ed25519.NewKeyFromSeed(mustHex(tb, "6241a409e6707bb640a0140a8a32bc3d193c33a661747284d6adfa4ed4180be4")),
			publicKey:  "z6MkjZRZv3aez3r18pB1RBFJR1kwUVJ5jHt92JmQwXbd5hwi",
			proofHash:  "d34009cea0dbc1ca941e09dc01c8c9d3e3ce3c5b853f67ee44698dcea10f5d19",
			docHash:    "87f65a76d40146205e3b3e06cb0fbd153f97f9ce70372390f52566bb7f9e0773",
			controller: mustRead(tb, "testdata/1edtech-obv3p0-controller.json"),
		},
		{
			// W3C vc-di-eddsa, TestVectors/eddsa-rdfc-2022 (signedDataInt.json, combinedHashDataInt.txt,
			// keyPair.json).
			name:      "W3C vc-di-eddsa eddsa-rdfc-2022",
			signed:    mustRead(tb, "testdata/w3c-eddsa-rdfc-2022-signed.json"),
			key:       mustSecretMultikey(tb, "z3u2en7t5LR2WtQH5PfFqMqwVHBeXouLzo6haApm8XHqvjxq"),
			publicKey: "z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2",
			proofHash: "4c4d3890a157f8d611b13c265c2c22f39aa0a567c7c7dd9ba3e45cd579784eeb",
			docHash:   "517744132ae165a5349155bef0bb0cf2258fff99dfe1dbd914b938d775a36017",
			controller: mustJSON(tb, ControllerDocument("https://vc.example/issuers/5678",
				mustDecodeMultikey(tb, "z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2"))),
		},
	}
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	require.NoError(tb, err)
	return b
}

func mustDecodeMultikey(tb testing.TB, s string) ed25519.PublicKey {
	tb.Helper()
	k, err := DecodeMultikey(s)
	require.NoError(tb, err)
	return k
}

func TestVectors(t *testing.T) {
	ctx := context.Background()
	for _, v := range vectors(t) {
		t.Run(v.name, func(t *testing.T) {
			require.Equal(t, v.publicKey, EncodeMultikey(v.key.Public().(ed25519.PublicKey)))

			var signed map[string]any
			require.NoError(t, json.Unmarshal(v.signed, &signed))
			proof := signed["proof"].(map[string]any)
			unsigned := map[string]any{}
			for k, val := range signed {
				if k != "proof" {
					unsigned[k] = val
				}
			}

			// The canonical forms hash to the published values: this pins canonicalization and the contexts.
			cfg := map[string]any{"@context": signed["@context"]}
			for k, val := range proof {
				if k != "proofValue" {
					cfg[k] = val
				}
			}
			canonCfg, err := Canonicalize(ctx, cfg, DefaultLimits)
			require.NoError(t, err)
			canonDoc, err := Canonicalize(ctx, unsigned, DefaultLimits)
			require.NoError(t, err)
			ph, dh := sha256.Sum256([]byte(canonCfg)), sha256.Sum256([]byte(canonDoc))
			require.Equal(t, v.proofHash, hex.EncodeToString(ph[:]), "proof hash; canonical proof config:\n%s", canonCfg)
			require.Equal(t, v.docHash, hex.EncodeToString(dh[:]), "document hash; canonical document:\n%s", canonDoc)

			// Signing again reproduces the published proofValue byte for byte (Ed25519 is deterministic).
			out, err := Sign(ctx, unsigned, v.key, SignOptions{
				VerificationMethod: proof["verificationMethod"].(string),
				Created:            mustTime(t, proof["created"].(string)),
			})
			require.NoError(t, err)
			var resigned map[string]any
			require.NoError(t, json.Unmarshal(out, &resigned))
			require.Equal(t, proof["proofValue"], resigned["proof"].([]any)[0].(map[string]any)["proofValue"])

			// And the published credential verifies against the key's controller document.
			r, err := NewStaticResolver(v.controller)
			require.NoError(t, err)
			res, err := Verify(ctx, v.signed, r)
			require.NoError(t, err)
			require.Equal(t, issuerID(signed["issuer"]), res.Issuer)
		})
	}
}

// The 1EdTech appendix also publishes the canonical document; compare it line by line so that a regression
// shows the quad that changed.
func TestCanonicalize1EdTechDocument(t *testing.T) {
	var signed map[string]any
	require.NoError(t, json.Unmarshal(mustRead(t, "testdata/1edtech-obv3p0-signed.json"), &signed))
	delete(signed, "proof")
	got, err := Canonicalize(context.Background(), signed, DefaultLimits)
	require.NoError(t, err)
	require.Equal(t, string(mustRead(t, "testdata/1edtech-obv3p0-canonical.nq")), got)
}
