package issuer

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/credential"
)

func ringEntry(t *testing.T, id string) string {
	t.Helper()
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return id + ":" + base64.StdEncoding.EncodeToString(b)
}

// TestRewrapKeys rotates the keyring: the Ed25519 and RSA keys sealed under the old entry are re-sealed under the
// new one, open with the new entry alone (the old one dropped) to the same keys, and a second run changes nothing.
func TestRewrapKeys(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	org := uuid.New()
	_, err := d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: org, Name: "Rotating Org"})
	require.NoError(t, err)
	oldEntry, newEntry := ringEntry(t, "k1"), ringEntry(t, "k2")
	oldRing, err := credential.NewKeyring(oldEntry)
	require.NoError(t, err)
	before := New(d, oldRing, "https://badges.example")
	ed, err := before.Key(ctx, org, "live")
	require.NoError(t, err)
	rsaKey, err := before.RSAKey(ctx, org, "test")
	require.NoError(t, err)

	rotated, err := credential.NewKeyring(newEntry + "," + oldEntry)
	require.NoError(t, err)
	res, err := New(d, rotated, "https://badges.example").RewrapKeys(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"ed25519": 1, "rsa": 1}, res.Rewrapped)

	again, err := New(d, rotated, "https://badges.example").RewrapKeys(ctx)
	require.NoError(t, err)
	require.Empty(t, again.Rewrapped)
	require.Equal(t, map[string]int{"ed25519": 1, "rsa": 1}, again.Current)

	// The old entry dropped: both keys still open, to the same keys.
	newRing, err := credential.NewKeyring(newEntry)
	require.NoError(t, err)
	after := New(d, newRing, "https://badges.example")
	ed2, err := after.Key(ctx, org, "live")
	require.NoError(t, err)
	require.Equal(t, ed, ed2)
	rsa2, err := after.RSAKey(ctx, org, "test")
	require.NoError(t, err)
	require.True(t, rsaKey.Equal(rsa2))

	// A ring without the entry a key is sealed with cannot rewrap it: an error, nothing half done.
	stranger, err := credential.NewKeyring(ringEntry(t, "k3"))
	require.NoError(t, err)
	_, err = New(d, stranger, "https://badges.example").RewrapKeys(ctx)
	require.Error(t, err)
}
