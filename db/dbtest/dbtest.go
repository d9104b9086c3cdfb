// Package dbtest gives each test package a fresh, migrated database on the local Postgres.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/badged/badged/db"
)

// DefaultURL is the local Postgres of the development machine and CI; TEST_DATABASE_URL overrides it.
const DefaultURL = "postgres://postgres@localhost:5432/postgres?sslmode=disable"

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

func serverURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// New returns a connection to a new database cloned from a migrated template, dropped when the test ends.
// It fails (never skips) when Postgres is unreachable: CI starts it before `make test`.
func New(tb testing.TB) *db.DB {
	tb.Helper()
	ctx := context.Background()
	templateOnce.Do(func() { templateName, templateErr = makeTemplate(ctx) })
	if templateErr != nil {
		tb.Fatalf("dbtest: prepare template database (is Postgres running? see README): %v", templateErr)
	}
	name := "badged_test_" + randomSuffix()
	admin := mustAdmin(tb, ctx)
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, templateName)); err != nil {
		tb.Fatalf("dbtest: create database: %v", err)
	}
	d, err := db.Open(ctx, withDatabase(tb, name))
	if err != nil {
		tb.Fatalf("dbtest: open: %v", err)
	}
	tb.Cleanup(func() {
		d.Close()
		admin := mustAdmin(tb, ctx)
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("dbtest: drop database: %v", err)
		}
	})
	return d
}

// URL returns the connection string of the database d was opened on, for code under test that opens its own pool.
func URL(tb testing.TB, d *db.DB) string {
	tb.Helper()
	return withDatabase(tb, d.Pool.Config().ConnConfig.Database)
}

// makeTemplate creates one migrated template per test process; each test clones it, which is much faster than
// migrating every database.
func makeTemplate(ctx context.Context) (string, error) {
	name := "badged_tpl_" + randomSuffix()
	cfg, err := pgx.ParseConfig(serverURL())
	if err != nil {
		return "", err
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "", err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	d, err := db.Open(ctx, urlWithDB(serverURL(), name))
	if err != nil {
		return "", err
	}
	defer d.Close()
	if _, err := db.Migrate(ctx, d); err != nil {
		return "", err
	}
	return name, nil
}

func mustAdmin(tb testing.TB, ctx context.Context) *pgx.Conn {
	tb.Helper()
	conn, err := pgx.Connect(ctx, serverURL())
	if err != nil {
		tb.Fatalf("dbtest: connect: %v", err)
	}
	return conn
}

func withDatabase(tb testing.TB, name string) string {
	tb.Helper()
	return urlWithDB(serverURL(), name)
}

// urlWithDB swaps the database name of a postgres:// URL, keeping user, password, host and options.
func urlWithDB(server, name string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	u.Path = "/" + name
	return u.String()
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
