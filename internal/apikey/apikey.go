// Package apikey makes and checks organization API keys.
//
// A key reads "bdg_<mode>_<key id, 32 hex>_<secret, 43 base64url>". The id lets the server find the row without
// an index on a secret; only the SHA-256 of the whole key is stored, and it is compared in constant time.
//
// It imports nothing of the module.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/google/uuid"
)

// Modes of a key: live keys spend credits and show their assertions; test keys do neither.
const (
	ModeLive = "live"
	ModeTest = "test"
)

// Roles of a key, lowest first.
const (
	RoleViewer  = "ORG_VIEWER"
	RoleManager = "ORG_MANAGER"
	RoleOwner   = "ORG_OWNER"
)

// ErrMalformed is returned by Parse for text that cannot be a key.
var ErrMalformed = errors.New("apikey: malformed key")

// RoleRank orders roles; an unknown role ranks 0 and is never enough.
func RoleRank(role string) int {
	switch role {
	case RoleViewer:
		return 1
	case RoleManager:
		return 2
	case RoleOwner:
		return 3
	}
	return 0
}

// ValidRole reports whether role is one of the three key roles.
func ValidRole(role string) bool { return RoleRank(role) > 0 }

// ValidMode reports whether mode is live or test.
func ValidMode(mode string) bool { return mode == ModeLive || mode == ModeTest }

// New makes a key for a new key id; it returns the full key (shown once) and its hash (stored).
func New(id uuid.UUID, mode string) (key string, hash []byte, err error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return "", nil, err
	}
	key = "bdg_" + mode + "_" + strings.ReplaceAll(id.String(), "-", "") + "_" + base64.RawURLEncoding.EncodeToString(secret)
	return key, Hash(key), nil
}

// Parse returns the key id carried in key.
func Parse(key string) (uuid.UUID, error) {
	// SplitN: the base64url secret may itself contain "_".
	parts := strings.SplitN(key, "_", 4)
	if len(parts) != 4 || parts[0] != "bdg" || !ValidMode(parts[1]) || len(parts[2]) != 32 || len(parts[3]) != 43 {
		return uuid.Nil, ErrMalformed
	}
	id, err := uuid.Parse(parts[2])
	if err != nil {
		return uuid.Nil, ErrMalformed
	}
	return id, nil
}

// Hash is the stored form of a key.
func Hash(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// Matches compares key against a stored hash in constant time.
func Matches(key string, stored []byte) bool {
	return subtle.ConstantTimeCompare(Hash(key), stored) == 1
}

// Prefix is how a key is named where its text may not be shown (the console's list): its mode and the start of its
// id, which is how the key's text starts. It carries nothing of the secret.
func Prefix(id uuid.UUID, mode string) string {
	return "bdg_" + mode + "_" + strings.ReplaceAll(id.String(), "-", "")[:8] + "…"
}
