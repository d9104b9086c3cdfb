package devserver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	_ "go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql" // registers postgres12_pgx
	"go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/tools/common/schema"
	sqltool "go.temporal.io/server/tools/sql"
)

const postgresPlugin = "postgres12_pgx"

// persistenceStores names the data stores of the server config.
type persistenceStores struct {
	defaultName, visibilityName string
	stores                      map[string]config.DataStore
	// main is the store holding the namespaces table.
	main *config.SQL
}

// preparePersistence returns the data stores for o and makes sure their
// schema exists: SQLite schema on a new file, or Postgres databases created
// and migrated to the schema version this server expects.
func preparePersistence(o Options, logger log.Logger) (persistenceStores, error) {
	if o.PostgresURL != "" {
		return preparePostgres(o.PostgresURL, logger)
	}
	return prepareSQLite(o.Dir)
}

func prepareSQLite(dir string) (persistenceStores, error) {
	cfg := &config.SQL{PluginName: sqlite.PluginName, ConnectAttributes: map[string]string{}}
	if dir == "" {
		// A shared-cache memory database named at random, so that two
		// servers in one test binary never share state. The plugin creates
		// the schema itself in memory mode.
		cfg.DatabaseName = "devserver-" + strconv.FormatUint(rand.Uint64(), 36)
		cfg.ConnectAttributes["mode"] = "memory"
		cfg.ConnectAttributes["cache"] = "shared"
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return persistenceStores{}, fmt.Errorf("create temporal dir: %w", err)
		}
		file := filepath.Join(dir, sqliteFileName)
		cfg.DatabaseName = file
		cfg.ConnectAttributes["mode"] = "rwc"
		// WAL lets readers (visibility, polls) run beside the single writer;
		// synchronous=NORMAL is durable across process crashes, which is
		// all a dev server needs.
		cfg.ConnectAttributes["journal_mode"] = "wal"
		cfg.ConnectAttributes["synchronous"] = "normal"
		cfg.ConnectAttributes["busy_timeout"] = "10000"
		// MaxConns stays at the plugin's 1: with 4 connections, even in WAL
		// mode, concurrent write transactions fail with SQLITE_BUSY (517).
		_, err := os.Stat(file)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := sqliteschema.SetupSchema(cfg); err != nil {
				return persistenceStores{}, fmt.Errorf("create sqlite schema: %w", err)
			}
		case err != nil:
			return persistenceStores{}, fmt.Errorf("stat sqlite file: %w", err)
		}
	}
	return persistenceStores{
		defaultName:    "sqlite",
		visibilityName: "sqlite",
		stores:         map[string]config.DataStore{"sqlite": {SQL: cfg}},
		main:           cfg,
	}, nil
}

// preparePostgres parses a URL such as postgres://user:pw@host:5432/name and
// sets up two databases: name (executions) and name_visibility.
func preparePostgres(rawURL string, logger log.Logger) (persistenceStores, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return persistenceStores{}, fmt.Errorf("parse postgres url: %w", err)
	}
	name := u.Path
	if len(name) > 0 && name[0] == '/' {
		name = name[1:]
	}
	if name == "" {
		return persistenceStores{}, fmt.Errorf("postgres url %q names no database", u.Redacted())
	}
	host := u.Host
	if u.Port() == "" {
		host += ":5432"
	}
	pw, _ := u.User.Password()
	newCfg := func(db string) *config.SQL {
		return &config.SQL{
			PluginName:      postgresPlugin,
			DatabaseName:    db,
			ConnectAddr:     host,
			ConnectProtocol: "tcp",
			User:            u.User.Username(),
			Password:        pw,
			// sslmode and friends pass through as connection attributes.
			ConnectAttributes: queryAttributes(u.Query()),
			MaxConns:          20,
			MaxIdleConns:      20,
		}
	}
	mainCfg, visCfg := newCfg(name), newCfg(name+"_visibility")
	for _, s := range []struct {
		cfg    *config.SQL
		schema string
	}{
		{mainCfg, "postgresql/v12/temporal"},
		{visCfg, "postgresql/v12/visibility"},
	} {
		if err := migratePostgres(s.cfg, s.schema, logger); err != nil {
			return persistenceStores{}, err
		}
	}
	return persistenceStores{
		defaultName:    "postgres",
		visibilityName: "postgres-visibility",
		stores: map[string]config.DataStore{
			"postgres":            {SQL: mainCfg},
			"postgres-visibility": {SQL: visCfg},
		},
		main: mainCfg,
	}, nil
}

func queryAttributes(q url.Values) map[string]string {
	out := map[string]string{}
	for k, v := range q {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	return out
}

// migratePostgres creates the database if missing, installs the version
// tables on a fresh database, then applies every embedded versioned schema
// step newer than the recorded version (a no-op when current).
func migratePostgres(cfg *config.SQL, schemaName string, logger log.Logger) error {
	create := *cfg
	if err := sqltool.DoCreateDatabase(&create, "postgres", logger); err != nil {
		return fmt.Errorf("create database %s: %w", cfg.DatabaseName, err)
	}
	conn, err := sqltool.NewConnection(cfg, logger)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", cfg.DatabaseName, err)
	}
	defer conn.Close()
	if _, err := conn.ReadSchemaVersion(); err != nil {
		// No version table yet: a fresh database.
		setup := schema.NewSetupSchemaTask(conn, &schema.SetupConfig{InitialVersion: "0.0"}, logger)
		if err := setup.Run(); err != nil {
			return fmt.Errorf("set up schema versioning in %s: %w", cfg.DatabaseName, err)
		}
	}
	update := schema.NewUpdateSchemaTask(conn, &schema.UpdateConfig{DBName: cfg.DatabaseName, SchemaName: schemaName}, logger)
	if err := update.Run(); err != nil {
		return fmt.Errorf("migrate %s: %w", cfg.DatabaseName, err)
	}
	return nil
}
