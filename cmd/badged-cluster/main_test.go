package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/deploy/cluster"
)

// `down` says what it keeps (the databases and the state directory, with its size) and how to remove it; `down
// --purge` removes it. The cluster is one that ran and stopped: its cluster.json, its state and its databases.
func TestDown_SaysWhatItKeepsAndPurgeRemovesIt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	var cfg cluster.Config
	cfg.Bin.SQLTool, err = cluster.BuildSQLTool(ctx, repo, nil)
	require.NoError(t, err)
	admin := dbtest.New(t)
	cfg.Name, cfg.Dir, cfg.Postgres = "review", filepath.Join(t.TempDir(), "cluster-review"), dbtest.ServerURL()
	cfg.BadgedDB, cfg.TemporalDB, cfg.VisibilityDB = dbtest.Scratch(t, "badged_cluster_review"),
		dbtest.Scratch(t, "temporal_review"), dbtest.Scratch(t, "temporal_visibility_review")
	c, err := cluster.New(cfg, nil) // makes the directory and the key ring, starts nothing
	require.NoError(t, err)
	data, err := json.Marshal(c.Config)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(cfg.Dir, "cluster.json"), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(cfg.Dir, "logs", "api1.log"), make([]byte, 3<<20), 0o644))
	for _, name := range c.Databases() {
		_, err := admin.Pool.Exec(ctx, "CREATE DATABASE "+name)
		require.NoError(t, err)
	}
	count := func() (n int) {
		require.NoError(t, admin.Pool.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = ANY($1)", c.Databases()).Scan(&n))
		return n
	}

	var out bytes.Buffer
	require.NoError(t, run(ctx, []string{"down", "--dir", cfg.Dir}, &out))
	require.Contains(t, out.String(), "Kept, for the next make cluster:")
	require.Contains(t, out.String(), "databases "+cfg.BadgedDB+", "+cfg.TemporalDB+", "+cfg.VisibilityDB+" on postgres://")
	require.Contains(t, out.String(), cfg.Dir+" (3.0 MB: logs, S3 objects")
	require.Contains(t, out.String(), "Remove them with: make cluster-purge CLUSTER_NAME=review (badged-cluster down --purge)")
	require.Equal(t, 3, count(), "down keeps the databases")
	require.DirExists(t, cfg.Dir)

	out.Reset()
	require.NoError(t, run(ctx, []string{"down", "--purge", "--dir", cfg.Dir}, &out))
	require.Contains(t, out.String(), "purged: dropped databases "+cfg.BadgedDB)
	require.Zero(t, count())
	require.NoDirExists(t, cfg.Dir)
}

// Every command finds a named cluster by --name, or by the --port-offset that named it, without --dir.
func TestSelector_NameOrOffsetPicksTheStateDirectory(t *testing.T) {
	for _, tc := range []struct {
		sel  selector
		want string
	}{
		{selector{offset: cluster.DefaultOffset}, filepath.Join(".data", "cluster")},
		{selector{name: "review", offset: cluster.DefaultOffset}, filepath.Join(".data", "cluster-review")},
		{selector{offset: 20000}, filepath.Join(".data", "cluster-p20000")},
		{selector{name: "review", offset: 20000}, filepath.Join(".data", "cluster-review")},
		{selector{dir: "/srv/c", name: "review"}, "/srv/c"},
	} {
		require.Equal(t, tc.want, tc.sel.stateDir(), "%+v", tc.sel)
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"status", "--name", "Bad-Name"}, &out)
	require.ErrorContains(t, err, `cluster name "Bad-Name"`)
	err = run(context.Background(), []string{"status", "--name", "nosuch", "--dir", t.TempDir()}, &out)
	require.ErrorContains(t, err, "no cluster in")
}

// reset-temporal drops every workflow Temporal holds: without --yes it says so, names the databases and does nothing.
func TestResetTemporal_AsksForYes(t *testing.T) {
	var cfg cluster.Config
	cfg.Name, cfg.Dir = "drill", filepath.Join(t.TempDir(), "cluster-drill")
	c, err := cluster.New(cfg, nil)
	require.NoError(t, err)
	data, err := json.Marshal(c.Config)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(cfg.Dir, "cluster.json"), data, 0o644))
	var out bytes.Buffer
	err = run(context.Background(), []string{"reset-temporal", "--dir", cfg.Dir}, &out)
	require.ErrorContains(t, err, "reset-temporal drops temporal_drill and temporal_visibility_drill")
	require.ErrorContains(t, err, "run again with --yes")
}
