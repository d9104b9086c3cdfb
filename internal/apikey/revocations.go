package apikey

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// RevokedChannel is the Postgres channel on which a key's revocation is announced when its transaction commits
// (the trigger of migration 0036_key_revocations.sql), whoever revoked it.
const RevokedChannel = "api_key_revoked"

// Revocations carries the keys revoked anywhere to this process's key caches, so that a revoked key stops working
// on every API process at once instead of after the cache's TTL. Listen receives the announcements; each cache
// subscribes with what to forget.
type Revocations struct {
	mu     sync.Mutex
	forget []func(uuid.UUID)
	reset  []func()
}

// Subscribe registers a cache: forget drops one key, reset drops them all (after announcements may have been
// missed while the listening connection was down).
func (r *Revocations) Subscribe(forget func(uuid.UUID), reset func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forget = append(r.forget, forget)
	r.reset = append(r.reset, reset)
}

func (r *Revocations) revoked(id uuid.UUID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.forget {
		f(id)
	}
}

func (r *Revocations) resetAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.reset {
		f()
	}
}

// Listen holds one connection of pool listening on RevokedChannel until ctx ends. When the connection is lost it
// connects again (at most once a second) and resets every cache, since announcements made meanwhile were missed;
// until then the caches' TTL still bounds how long a revoked key works.
func (r *Revocations) Listen(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	for ctx.Err() == nil {
		err := r.listenOnce(ctx, pool)
		if ctx.Err() != nil {
			return
		}
		log.Warn("api key revocations: listening connection lost; caches reset, listening again", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (r *Revocations) listenOnce(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection that was listening is not handed back to the pool: closing it ends the LISTEN with it.
	defer func() {
		_ = conn.Hijack().Close(context.WithoutCancel(ctx))
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+RevokedChannel); err != nil {
		return err
	}
	r.resetAll() // whatever was cached before this LISTEN may have been revoked unannounced
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if id, err := uuid.Parse(n.Payload); err == nil {
			r.revoked(id)
		}
	}
}
