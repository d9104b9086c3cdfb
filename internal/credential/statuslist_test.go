package credential

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestStatusListBits(t *testing.T) {
	l := NewStatusList(10)
	require.Equal(t, MinStatusListBits, l.Len())
	require.NoError(t, l.Set(0, true))
	require.NoError(t, l.Set(9, true))
	require.Equal(t, byte(0x80), l.bits[0], "bit 0 is the left-most bit of byte 0")
	require.Equal(t, byte(0x40), l.bits[1])
	for i, want := range map[int]bool{0: true, 1: false, 9: true, 131071: false} {
		got, err := l.Get(i)
		require.NoError(t, err)
		require.Equal(t, want, got, i)
	}
	require.NoError(t, l.Set(0, false))
	got, _ := l.Get(0)
	require.False(t, got)
	require.ErrorIs(t, l.Set(131072, true), ErrStatusIndex)
	_, err := l.Get(-1)
	require.ErrorIs(t, err, ErrStatusIndex)
	require.Equal(t, 200000, NewStatusList(199999).Len())
}

func TestStatusListEncodeDecode(t *testing.T) {
	l := NewStatusList(0)
	for _, i := range []int{0, 7, 8, 94567, 131071} {
		require.NoError(t, l.Set(i, true))
	}
	enc, err := l.Encode()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(enc, "u"))
	require.NotContains(t, enc, "=")
	again, err := l.Encode()
	require.NoError(t, err)
	require.Equal(t, enc, again, "deterministic")
	d, err := DecodeStatusList(enc)
	require.NoError(t, err)
	require.Equal(t, l.bits, d.bits)
}

// The empty 16 KB list of the Bitstring Status List v1.0 examples (GZIP by another implementation) decodes.
func TestDecodeSpecExampleList(t *testing.T) {
	d, err := DecodeStatusList("uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA")
	require.NoError(t, err)
	require.Equal(t, MinStatusListBits, d.Len())
	for _, b := range d.bits {
		require.Zero(t, b)
	}
}

func TestDecodeStatusListRejects(t *testing.T) {
	small := &StatusList{bits: make([]byte, 100)}
	enc, err := small.Encode()
	require.NoError(t, err)
	huge := &StatusList{bits: make([]byte, MaxStatusListBits/8+1)}
	bomb, err := huge.Encode()
	require.NoError(t, err)
	for name, s := range map[string]string{"no multibase": "H4sI", "not base64": "u!!", "not gzip": "uAAAA", "too small": enc, "gzip bomb": bomb} {
		_, err := DecodeStatusList(s)
		require.Error(t, err, name)
	}
}

func TestStatusListCredentialAndCheck(t *testing.T) {
	pub, priv := testKey(t)
	ctx := context.Background()
	in := testInput()
	listID := in.Status.ListCredential
	signedCred := mustSign(t, mustBuild(t, in), priv, VerificationMethodID(testIssuer, pub))

	list := NewStatusList(0)
	signList := func() []byte {
		enc, err := list.Encode()
		require.NoError(t, err)
		lc := BuildStatusListCredential(listID, testIssuer, enc, time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC))
		signed := mustSign(t, lc, priv, VerificationMethodID(testIssuer, pub))
		_, err = Verify(ctx, signed, ownResolver(t, pub))
		require.NoError(t, err, "a status list credential signs and verifies like a badge")
		return signed
	}

	revoked, err := CheckStatus(signedCred, signList())
	require.NoError(t, err)
	require.False(t, revoked)

	require.NoError(t, list.Set(in.Status.Index, true))
	revoked, err = CheckStatus(signedCred, signList())
	require.NoError(t, err)
	require.True(t, revoked)

	// A list of another id or issuer is refused.
	var other map[string]any
	require.NoError(t, json.Unmarshal(signList(), &other))
	other["id"] = "https://badges.example/v3/status/org-2/1"
	_, err = CheckStatus(signedCred, other)
	require.Error(t, err)
	other["id"], other["issuer"] = listID, "https://evil.example"
	_, err = CheckStatus(signedCred, other)
	require.Error(t, err)

	// No credentialStatus: not revoked.
	in.Status = nil
	revoked, err = CheckStatus(mustBuild(t, in), signList())
	require.NoError(t, err)
	require.False(t, revoked)
}
