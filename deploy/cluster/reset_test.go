package cluster

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
)

// ResetTemporal leaves Temporal's two databases as a new cluster's, at the server's schema and empty, and
// badged's database as it was; it refuses, before dropping anything, while a Temporal service runs.
func TestCluster_ResetTemporalEmptiesTemporalsDatabasesOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	sqlTool, err := BuildSQLTool(ctx, repo, nil)
	require.NoError(t, err)
	admin := dbtest.New(t)
	cfg := Config{Postgres: dbtest.ServerURL(), Name: "reset", Repo: repo,
		BadgedDB: dbtest.Scratch(t, "badged_cluster_reset"), TemporalDB: dbtest.Scratch(t, "temporal_reset"),
		VisibilityDB: dbtest.Scratch(t, "temporal_visibility_reset")}
	cfg.Bin.SQLTool = sqlTool
	c := newTestCluster(t, cfg)
	require.Equal(t, []string{cfg.TemporalDB, cfg.VisibilityDB}, c.TemporalDatabases())
	_, err = admin.Pool.Exec(ctx, "CREATE DATABASE "+cfg.BadgedDB)
	require.NoError(t, err)
	require.NoError(t, c.temporalSchema(ctx), "the databases as Up creates them")

	exec := func(name, sql string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, c.DatabaseURL(name))
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		require.NoError(t, err)
	}
	count := func(name, sql string) (n int) {
		t.Helper()
		conn, err := pgx.Connect(ctx, c.DatabaseURL(name))
		require.NoError(t, err)
		defer conn.Close(ctx)
		require.NoError(t, conn.QueryRow(ctx, sql).Scan(&n))
		return n
	}
	// What Temporal had: a namespace row, and a table of badged's that must outlive the reset.
	exec(cfg.TemporalDB, `INSERT INTO namespaces (partition_id, id, name, notification_version, data, data_encoding, is_global)
		VALUES (54321, '\x00112233445566778899aabbccddeeff', 'default', 1, '\x00', 'Proto3', false)`)
	exec(cfg.BadgedDB, "CREATE TABLE kept (id int); INSERT INTO kept VALUES (1)")
	require.Equal(t, 1, count(cfg.TemporalDB, "SELECT count(*) FROM namespaces"))

	history := c.Process("temporal-history")
	history.Bin, history.Args, history.ready, history.dieWithParent = "/bin/sleep", []string{"60"}, func(context.Context) error { return nil }, true
	t.Cleanup(func() { _ = history.Kill(context.Background()) })
	require.NoError(t, history.Start(ctx))
	require.ErrorContains(t, c.ResetTemporal(ctx), "temporal-history still running")
	require.Equal(t, 1, count(cfg.TemporalDB, "SELECT count(*) FROM namespaces"), "nothing dropped while a service runs")

	require.NoError(t, c.StopTemporal(ctx, 5*time.Second))
	require.Zero(t, history.Pid())
	require.NoError(t, c.ResetTemporal(ctx))
	require.Zero(t, count(cfg.TemporalDB, "SELECT count(*) FROM namespaces"), "Temporal's data is gone")
	require.Zero(t, count(cfg.VisibilityDB, "SELECT count(*) FROM executions_visibility"))
	for _, name := range c.TemporalDatabases() {
		require.Equal(t, 1, count(name, "SELECT count(*) FROM schema_version WHERE curr_version <> ''"),
			"%s at the server's schema", name)
	}
	require.Equal(t, 1, count(cfg.BadgedDB, "SELECT count(*) FROM kept"), "badged's database untouched")
}
