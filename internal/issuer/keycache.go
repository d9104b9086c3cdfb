package issuer

import (
	"sync"

	"github.com/google/uuid"
)

// keyCache holds the issuer keys a Service has opened, Ed25519 and RSA alike. An issuer's key never changes once
// stored (CreateIssuerKey and CreateIssuerRSAKey keep the first; a keyring rewrap re-seals the same key), so an
// opened key stays right for the life of the process. Without it every signature (a wallet claim, a pipeline
// sign step) read the sealed key and opened it again: a database round trip and the unsealing, and for RSA the
// PKCS#8 parsing and CRT precomputation, which cost more than the signature.
type keyCache struct{ m sync.Map } // cacheKey -> ed25519.PrivateKey or *rsa.PrivateKey

type cacheKey struct {
	kind string // "ed25519", "rsa"
	org  uuid.UUID
	mode string
}

func (c *keyCache) load(kind string, org uuid.UUID, mode string) (any, bool) {
	return c.m.Load(cacheKey{kind, org, mode})
}

func (c *keyCache) store(kind string, org uuid.UUID, mode string, key any) {
	c.m.Store(cacheKey{kind, org, mode}, key)
}
