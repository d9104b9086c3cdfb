package devserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/common/config"
	sqltool "go.temporal.io/server/tools/sql"
)

// postgresURL returns a URL to a fresh database name on the local Postgres
// (DESIGN: trust auth postgres@localhost:5432, or DEVSERVER_POSTGRES_URL
// without a database path) and drops both databases after the test.
func postgresURL(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv("DEVSERVER_POSTGRES_URL")
	if base == "" {
		base = "postgres://postgres@localhost:5432"
	}
	name := fmt.Sprintf("devserver_test_%d", rand.Uint32())
	tb.Cleanup(func() {
		for _, db := range []string{name, name + "_visibility"} {
			cfg := &config.SQL{PluginName: postgresPlugin, DatabaseName: db, ConnectAddr: "localhost:5432",
				ConnectProtocol: "tcp", User: "postgres"}
			if err := sqltool.DoDropDatabase(cfg, "postgres", serverLogger{l: testLogger(), quiet: new(atomic.Bool)}); err != nil {
				tb.Logf("drop %s: %v", db, err)
			}
		}
	})
	return base + "/" + name
}

func TestPostgresPersistence(t *testing.T) {
	url := postgresURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	first, err := Start(ctx, Options{PostgresURL: url, Namespace: "badged", SearchAttributes: badgedAttributes, Logger: testLogger()})
	require.NoError(t, err)
	c1 := dial(t, first)
	startWorker(t, c1)
	id := runTagged(ctx, t, c1, "iss-pg")
	c1.Close()
	require.NoError(t, first.Stop())

	// A second start migrates nothing and finds the workflow again.
	second := startServer(t, Options{PostgresURL: url, Namespace: "badged"})
	c2 := dial(t, second)
	require.Equal(t, []string{id}, listByIssuance(ctx, t, c2, "iss-pg"))
}
