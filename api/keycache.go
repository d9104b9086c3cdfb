package api

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// maxCachedKeys bounds the key cache; past it, expired entries are swept and, if none were, the cache starts over.
// Only stored keys are cached (an unknown id always reads the database), so ids a client makes up cannot fill it.
const maxCachedKeys = 10_000

// keyCache remembers API-key rows for ttl so that authenticating a request is not a database round trip. A row is
// served for at most ttl after it was read. A revoked key ends at once on every process that listens for
// revocations (Deps.KeyRevocations: forget), and on the process whose console revoked it; without the listener it
// keeps working for at most ttl, and so does a changed role or organization name. The key's hash is still
// compared on every request.
type keyCache struct {
	ttl  time.Duration
	now  func() time.Time
	load func(context.Context, uuid.UUID) (db.GetAPIKeyRow, error)

	mu      sync.RWMutex
	entries map[uuid.UUID]cachedKey
}

type cachedKey struct {
	row     db.GetAPIKeyRow
	expires time.Time
}

// newKeyCache returns a cache of the rows load reads, each kept for ttl.
func newKeyCache(ttl time.Duration, now func() time.Time, load func(context.Context, uuid.UUID) (db.GetAPIKeyRow, error)) *keyCache {
	return &keyCache{ttl: ttl, now: now, load: load, entries: map[uuid.UUID]cachedKey{}}
}

// get returns the row of key id, from the cache while it is fresh.
func (c *keyCache) get(ctx context.Context, id uuid.UUID) (db.GetAPIKeyRow, error) {
	now := c.now()
	c.mu.RLock()
	e, ok := c.entries[id]
	c.mu.RUnlock()
	if ok && now.Before(e.expires) {
		return e.row, nil
	}
	row, err := c.load(ctx, id)
	if err != nil {
		return row, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCachedKeys {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= maxCachedKeys {
			clear(c.entries)
		}
	}
	c.entries[id] = cachedKey{row: row, expires: now.Add(c.ttl)}
	return row, nil
}

// forget drops key id, so its next request reads the row again: a key revoked in the console stops working on this
// process at once, not after ttl.
func (c *keyCache) forget(id uuid.UUID) {
	c.mu.Lock()
	delete(c.entries, id)
	c.mu.Unlock()
}

// reset drops every key: revocations may have been missed while the listening connection was down.
func (c *keyCache) reset() {
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}
