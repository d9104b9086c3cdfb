package credential

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
)

func ringKey(b byte) string {
	return base64.StdEncoding.EncodeToString([]byte(strings.Repeat(string(rune(b)), 32)))
}

func mustKeyring(tb testing.TB, spec string) *Keyring {
	tb.Helper()
	kr, err := NewKeyring(spec)
	require.NoError(tb, err)
	return kr
}

func TestMultikey(t *testing.T) {
	pub := mustDecodeMultikey(t, "z6MkjZRZv3aez3r18pB1RBFJR1kwUVJ5jHt92JmQwXbd5hwi")
	require.Equal(t, "4bdeafde2ea8beefadd8c699b5c7e0704cf51154d52e17b20b71337ca04cc5a5", hexOf(pub))
	require.Equal(t, "z6MkjZRZv3aez3r18pB1RBFJR1kwUVJ5jHt92JmQwXbd5hwi", EncodeMultikey(pub))
	for _, bad := range []string{"", "z", "u6Mk", "z3u2en7t5LR2WtQH5PfFqMqwVHBeXouLzo6haApm8XHqvjxq", "z0OIl"} {
		_, err := DecodeMultikey(bad)
		require.Error(t, err, bad)
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// Our controller document for the 1EdTech key and issuer is the document 1EdTech publishes with its vector.
func TestControllerDocumentMatches1EdTech(t *testing.T) {
	pub := mustDecodeMultikey(t, "z6MkjZRZv3aez3r18pB1RBFJR1kwUVJ5jHt92JmQwXbd5hwi")
	var want any
	require.NoError(t, json.Unmarshal(mustRead(t, "testdata/1edtech-obv3p0-controller.json"), &want))
	var got any
	require.NoError(t, json.Unmarshal(mustJSON(t, ControllerDocument("https://example.edu/issuers/565049", pub)), &got))
	require.Equal(t, want, got)
}

func TestKeyringParse(t *testing.T) {
	kr := mustKeyring(t, "k2:"+ringKey('b')+", k1:"+strings.TrimRight(ringKey('a'), "="))
	require.Equal(t, "k2", kr.PrimaryID())
	urlKey := base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("\xff", 32)))
	require.Equal(t, "k3", mustKeyring(t, "k3:"+urlKey).PrimaryID())
	for _, bad := range []string{"", "k1", "k1:" + ringKey('a') + ",k1:" + ringKey('b'), "k 1:" + ringKey('a'), "k1:c2hvcnQ=", "k1:!!!"} {
		_, err := NewKeyring(bad)
		require.Error(t, err, bad)
		if strings.Contains(bad, ringKey('a')) {
			require.NotContains(t, err.Error(), ringKey('a'), "key material must not leak into errors")
		}
	}
}

func TestIssuerKeySealAndRotate(t *testing.T) {
	old := mustKeyring(t, "k1:"+ringKey('a'))
	pub, sealed, err := GenerateIssuerKey(old)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(sealed), "v1.k1."))
	priv, err := OpenIssuerKey(old, sealed)
	require.NoError(t, err)
	require.Equal(t, pub, priv.Public().(ed25519.PublicKey))

	// Rotation: the new key seals, the old one still opens until rewrapped.
	rotated := mustKeyring(t, "k2:"+ringKey('b')+",k1:"+ringKey('a'))
	require.True(t, rotated.NeedsRewrap(sealed))
	_, err = OpenIssuerKey(rotated, sealed)
	require.NoError(t, err)
	rewrapped, err := RewrapIssuerKey(rotated, sealed)
	require.NoError(t, err)
	require.False(t, rotated.NeedsRewrap(rewrapped))
	priv2, err := OpenIssuerKey(mustKeyring(t, "k2:"+ringKey('b')), rewrapped)
	require.NoError(t, err)
	require.Equal(t, priv, priv2)

	// The old ring cannot open what the new key sealed; a flipped byte or another purpose fails too.
	_, err = OpenIssuerKey(old, rewrapped)
	require.Equal(t, errcode.CredentialSigningFailed, errcode.Of(err))
	tampered := []byte(string(sealed))
	tampered[len(tampered)-3] ^= 1
	_, err = OpenIssuerKey(old, tampered)
	require.Error(t, err)
	_, err = old.Open(sealed, []byte("something else"))
	require.Error(t, err)
	// The same key id with different key bytes cannot open it either.
	_, err = OpenIssuerKey(mustKeyring(t, "k1:"+ringKey('z')), sealed)
	require.Error(t, err)
}

func TestGenerateIssuerKeyWithoutKeyring(t *testing.T) {
	_, _, err := GenerateIssuerKey(nil)
	require.Equal(t, errcode.IssuerKeyGenerationFailed, errcode.Of(err))
}
