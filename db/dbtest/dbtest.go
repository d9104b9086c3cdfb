// Package dbtest gives each test package a fresh, migrated database on the local Postgres.
//
// It imports only db; only tests import it.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/badged/badged/db"
)

// DefaultURL is the local Postgres of the development machine and CI; TEST_DATABASE_URL overrides it.
const DefaultURL = "postgres://postgres@localhost:5432/postgres?sslmode=disable"

func serverURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// ServerURL is the Postgres server the tests use (TEST_DATABASE_URL, default DefaultURL), for code under test
// that creates databases of its own there.
func ServerURL() string { return serverURL() }

// Scratch returns a new, unused database name starting with prefix and drops the database of that name, if the
// code under test created one, when the test ends (Temporal's databases of a cluster test).
func Scratch(tb testing.TB, prefix string) string {
	tb.Helper()
	name := prefix + "_" + randomSuffix()
	tb.Cleanup(func() {
		ctx := context.Background()
		admin := mustAdmin(tb, ctx)
		defer admin.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("dbtest: drop database %s: %v", name, err)
		}
	})
	return name
}

// New returns a connection to a new database cloned from a migrated template, dropped when the test ends.
// It fails (never skips) when Postgres is unreachable: CI starts it before `make test`.
func New(tb testing.TB) *db.DB {
	tb.Helper()
	ctx := context.Background()
	name := "badged_test_" + randomSuffix()
	if err := cloneTemplate(ctx, name); err != nil {
		tb.Fatalf("dbtest: create database from the template (is Postgres running? see README): %v", err)
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

// templateLock serialises template creation, cloning and clean-up across test processes (go test runs packages
// in parallel, and checkouts of other schemas may run their tests at the same time).
const templateLock = 7261_0002

// staleTemplateAge is how long a template of another schema may go unused before a test process drops it: a
// checkout of another branch testing at the same time keeps its own template alive.
const staleTemplateAge = time.Hour

// cloneTemplate creates database name from the migrated template of the current schema, creating the template
// when missing. The template is named after the migrations' digest, so every test process of the same schema
// shares it; it is built under a temporary name and renamed into place, so a process killed halfway never leaves
// a broken one. Each use stamps it (its comment holds the time), and templates of other schemas unused for
// staleTemplateAge are dropped. All of it runs under one advisory lock, so no template is dropped while cloned.
func cloneTemplate(ctx context.Context, dbName string) error {
	name := "badged_tpl_" + db.MigrationsDigest()
	admin, err := pgx.Connect(ctx, serverURL())
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLock); err != nil {
		return err
	}
	defer admin.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", templateLock) //nolint:errcheck
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		tmp := name + "_tmp_" + randomSuffix()
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+tmp); err != nil {
			return err
		}
		d, err := db.Open(ctx, urlWithDB(serverURL(), tmp))
		if err != nil {
			return err
		}
		_, err = db.Migrate(ctx, d)
		d.Close()
		if err != nil {
			return err
		}
		if _, err := admin.Exec(ctx, "ALTER DATABASE "+tmp+" RENAME TO "+name); err != nil {
			return err
		}
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("COMMENT ON DATABASE %s IS '%d'", name, time.Now().Unix())); err != nil {
		return err
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", dbName, name)); err != nil {
		return err
	}
	rows, err := admin.Query(ctx, `SELECT datname FROM pg_database
		WHERE datname LIKE 'badged\_tpl\_%' AND datname <> $1
		  AND COALESCE(NULLIF(shobj_description(oid, 'pg_database'), ''), '0') ~ '^[0-9]+$'
		  AND COALESCE(NULLIF(shobj_description(oid, 'pg_database'), ''), '0')::bigint < $2`,
		name, time.Now().Add(-staleTemplateAge).Unix())
	if err != nil {
		return err
	}
	stale, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, old := range stale {
		_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{old}.Sanitize()) // in use elsewhere: leave it
	}
	return nil
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
