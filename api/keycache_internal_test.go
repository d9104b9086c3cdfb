package api

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
)

// fakeKeys is a key table the cache loads from, counting the loads.
type fakeKeys struct {
	mu    sync.Mutex
	rows  map[uuid.UUID]db.GetAPIKeyRow
	loads int
}

func (f *fakeKeys) load(_ context.Context, id uuid.UUID) (db.GetAPIKeyRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads++
	row, ok := f.rows[id]
	if !ok {
		return row, pgx.ErrNoRows
	}
	return row, nil
}

func TestKeyCache(t *testing.T) {
	now := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	id, unknown := uuid.New(), uuid.New()
	keys := &fakeKeys{rows: map[uuid.UUID]db.GetAPIKeyRow{id: {ID: id, Role: "ORG_VIEWER"}}}
	c := newKeyCache(5*time.Second, func() time.Time { return now }, keys.load)
	ctx := context.Background()

	row, err := c.get(ctx, id)
	require.NoError(t, err)
	require.Equal(t, id, row.ID)
	_, err = c.get(ctx, id)
	require.NoError(t, err)
	require.Equal(t, 1, keys.loads, "a fresh row is served from the cache")

	revokedAt := now
	keys.rows[id] = db.GetAPIKeyRow{ID: id, Role: "ORG_VIEWER", RevokedAt: &revokedAt}
	now = now.Add(5*time.Second - time.Nanosecond)
	row, _ = c.get(ctx, id)
	require.Nil(t, row.RevokedAt, "within the TTL the revocation is not seen yet")
	now = now.Add(time.Nanosecond)
	row, _ = c.get(ctx, id)
	require.NotNil(t, row.RevokedAt, "at the TTL the row is read again and the revocation applies")
	require.Equal(t, 2, keys.loads)

	for range 3 {
		_, err = c.get(ctx, unknown)
		require.True(t, db.IsNotFound(err))
	}
	require.Equal(t, 5, keys.loads, "an unknown key is never cached")

	// Past the bound, expired entries go first; the fresh one stays.
	for i := range maxCachedKeys - 1 {
		c.entries[uuid.New()] = cachedKey{expires: now.Add(-time.Duration(i+1) * time.Nanosecond)}
	}
	other := uuid.New()
	keys.rows[other] = db.GetAPIKeyRow{ID: other}
	_, err = c.get(ctx, other)
	require.NoError(t, err)
	require.Len(t, c.entries, 2, "the expired entries were swept")
}
