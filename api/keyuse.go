package api

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// keyUseEvery is how often a key's last use is written: the console shows it to the minute, and a key used a
// thousand times a second costs one write a minute per process, not a thousand.
const keyUseEvery = time.Minute

// keyUse remembers when this process last wrote each key's last use. It holds only keys that authenticated, so
// its size is bounded by the stored keys.
type keyUse struct {
	mu   sync.Mutex
	last map[uuid.UUID]time.Time
}

// touch records that key id was used at now, writing it at most once per keyUseEvery. The write is best effort: a
// failure is not the request's (the key did authenticate), so it is dropped.
func (u *keyUse) touch(ctx context.Context, d *db.DB, id uuid.UUID, now time.Time) {
	u.mu.Lock()
	if u.last == nil {
		u.last = map[uuid.UUID]time.Time{}
	}
	if t, ok := u.last[id]; ok && now.Sub(t) < keyUseEvery {
		u.mu.Unlock()
		return
	}
	u.last[id] = now
	u.mu.Unlock()
	_ = d.TouchAPIKey(ctx, id)
}
