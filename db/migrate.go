package db

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the advisory lock key that serialises concurrent migrators (two processes starting at once).
const migrationLock = 7261_0001

// Migrate applies every embedded migration that the database has not seen yet, each in its own transaction, in
// file-name order. It returns the names it applied.
func Migrate(ctx context.Context, d *DB) ([]string, error) {
	conn, err := d.Pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire conn: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return nil, fmt.Errorf("take migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock) //nolint:errcheck

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var applied []string
	for _, path := range names {
		name := strings.TrimPrefix(path, "migrations/")
		var seen bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE name = $1)", name).Scan(&seen); err != nil {
			return applied, fmt.Errorf("check migration %s: %w", name, err)
		}
		if seen {
			continue
		}
		sql, err := migrations.ReadFile(path)
		if err != nil {
			return applied, err
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (name) VALUES ($1)", name)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("apply migration %s: %w", name, err)
		}
		applied = append(applied, name)
	}
	return applied, nil
}

// EnsureDatabase creates the database named in url when it does not exist, connecting to the server's "postgres"
// database to do so. The embedded default (`make run`) uses it so that a fresh machine needs no manual step.
func EnsureDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	name := cfg.Database
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to postgres database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database: %w", err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil && !IsUniqueViolation(err) {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// MigrationsDigest identifies the embedded schema: tests name their template database after it, so a template is
// built once per schema and reused by every test process.
func MigrationsDigest() string {
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		data, _ := migrations.ReadFile(n)
		h.Write([]byte(n))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
