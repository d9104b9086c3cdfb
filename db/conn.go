package db

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is the connection pool plus the sqlc queries bound to it.
type DB struct {
	*Queries
	Pool *pgxpool.Pool
}

// DefaultMaxConns is the pool size of a process whose DATABASE_URL sets no pool_max_conns. pgx's own default,
// max(4, CPUs), starves a process that serves the API while its worker runs steps: at 200 requests/s during
// issuances (BenchmarkSteadyLoad) 95% of connection requests waited, p50 0.5 s; with 16, p50 was tens of ms.
const DefaultMaxConns = 16

// Open connects to Postgres and checks the connection.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	// List queries have optional filters written as "($n IS NULL OR col = $n)". Planning each call with its values
	// folds the unused ones away so the right index is used; a cached generic plan would scan instead.
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return &DB{Queries: New(pool), Pool: pool}, nil
}

// Close closes the pool.
func (d *DB) Close() { d.Pool.Close() }

// Ping checks that the database answers; readiness probes use it.
func (d *DB) Ping(ctx context.Context) error { return d.Pool.Ping(ctx) }

// InTx runs fn in a transaction and commits if fn returns nil; any error rolls the whole transaction back, so a
// request never leaves a half-written row.
func (d *DB) InTx(ctx context.Context, fn func(*Queries) error) error {
	tx, err := d.Pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin tx: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // no-op after Commit
	if err := fn(New(tx)); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// InReadOnlyTx runs fn in a READ ONLY transaction on one snapshot and always rolls it back: Postgres refuses any
// write fn attempts (25006), so a caller that must write nothing, such as an issuance dry run, cannot by mistake.
func (d *DB) InReadOnlyTx(ctx context.Context, fn func(*Queries) error) error {
	tx, err := d.Pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin read-only tx: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // nothing to keep
	return fn(New(tx))
}

// IsNotFound reports whether err means a query found no row.
func IsNotFound(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// MaxWebhookEndpoints is how many webhook endpoints one organization may have. The database enforces it (the
// webhook_endpoints_per_org trigger of migration 0013, which holds the same number); the value here is for messages.
const MaxWebhookEndpoints = 20

// IsWebhookLimit reports whether err is the refusal of a webhook endpoint past MaxWebhookEndpoints.
func IsWebhookLimit(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23514" && pgErr.ConstraintName == "webhook_endpoints_per_org"
}

// IsUniqueViolation reports whether err is a unique-constraint violation.
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
