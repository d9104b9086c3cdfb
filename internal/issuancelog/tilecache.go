package issuancelog

import (
	"sync"

	"github.com/google/uuid"
	"golang.org/x/mod/sumdb/tlog"
)

// TileCache keeps full tiles in memory: a full tile never changes (its hashes and entries are stored for good), so
// a cached one is right forever and serving it needs no database round trip. Partial tiles are never cached. The
// oldest tiles go first once MaxBytes is reached.
type TileCache struct {
	MaxBytes int // 0: DefaultTileCacheBytes

	mu    sync.Mutex
	tiles map[tileKey][]byte
	order []tileKey // insertion order, for eviction
	bytes int
}

// DefaultTileCacheBytes bounds a TileCache by default: about 4,000 hash tiles or 200 full entry bundles.
const DefaultTileCacheBytes = 32 << 20

type tileKey struct {
	org uuid.UUID
	l   int
	n   int64
}

// Get returns a cached full tile.
func (c *TileCache) Get(org uuid.UUID, t tlog.Tile) ([]byte, bool) {
	if c == nil || !Full(t) {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.tiles[tileKey{org, t.L, t.N}]
	return b, ok
}

// Put keeps a full tile (a partial one is ignored).
func (c *TileCache) Put(org uuid.UUID, t tlog.Tile, data []byte) {
	if c == nil || !Full(t) {
		return
	}
	limit := c.MaxBytes
	if limit <= 0 {
		limit = DefaultTileCacheBytes
	}
	k := tileKey{org, t.L, t.N}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tiles == nil {
		c.tiles = map[tileKey][]byte{}
	}
	if _, ok := c.tiles[k]; ok || len(data) > limit {
		return
	}
	for c.bytes+len(data) > limit && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.tiles[old])
		delete(c.tiles, old)
	}
	c.tiles[k] = data
	c.order = append(c.order, k)
	c.bytes += len(data)
}
