package devserver

import (
	"fmt"
	"log/slog"

	"go.temporal.io/api/enums/v1"
)

// DefaultNamespace is the namespace used when Options.Namespace is empty.
const DefaultNamespace = "default"

// sqliteFileName is the database file created under Options.Dir.
const sqliteFileName = "temporal.sqlite"

// Options configures an embedded server. The zero value starts an in-memory
// server on a free loopback port without UI.
type Options struct {
	// Dir holds the SQLite database file (temporal.sqlite); it is created if
	// missing. Empty means an in-memory database that dies with the process.
	// Ignored when PostgresURL is set.
	Dir string
	// PostgresURL, when set, persists to Postgres instead of SQLite, e.g.
	// "postgres://postgres@localhost:5432/badged_temporal". The database and a
	// sibling "<name>_visibility" are created and migrated at start.
	PostgresURL string
	// FrontendAddr is the gRPC address clients dial, e.g. "127.0.0.1:7233".
	// Port 0 (or empty) picks a free port; read it back with FrontendAddr.
	FrontendAddr string
	// Namespace is registered at start; empty means DefaultNamespace.
	Namespace string
	// UIAddr serves the Temporal Web UI, e.g. "127.0.0.1:8233"; empty means
	// no UI, port 0 picks a free port (read it back with UIAddr).
	UIAddr string
	// SearchAttributes are the custom search attributes registered on the
	// namespace (added if missing at every start; existing ones are kept).
	SearchAttributes map[string]enums.IndexedValueType
	// Logger receives the server's warnings and errors (info and debug are
	// dropped: the server is chatty). Nil discards everything.
	Logger *slog.Logger
	// DynamicConfig overrides or adds server dynamic config values by key,
	// e.g. "limit.historyCount.error": 10000. Applied over our defaults.
	DynamicConfig map[string]any
}

func (o *Options) withDefaults() Options {
	out := *o
	if out.Namespace == "" {
		out.Namespace = DefaultNamespace
	}
	if out.FrontendAddr == "" {
		out.FrontendAddr = "127.0.0.1:0"
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	return out
}

func (o *Options) validate() error {
	for name, typ := range o.SearchAttributes {
		if name == "" {
			return fmt.Errorf("devserver: empty search attribute name")
		}
		if typ == enums.INDEXED_VALUE_TYPE_UNSPECIFIED {
			return fmt.Errorf("devserver: search attribute %q has no type", name)
		}
	}
	return nil
}
