package devserver

import (
	"fmt"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/config"
	sqliteschema "go.temporal.io/server/schema/sqlite"
)

// createNamespace inserts the namespace row straight into the database
// before the server starts, as the Temporal CLI's dev server does: a
// namespace registered through the API only becomes usable after the
// namespace cache refreshes. The helper is plain SQL and works for the
// Postgres store too. An existing namespace is left untouched.
func createNamespace(cfg *config.SQL, namespace string, attrs map[string]enums.IndexedValueType) error {
	ns, err := sqliteschema.NewNamespaceConfig(clusterName, namespace, false, attrs)
	if err != nil {
		return fmt.Errorf("namespace config: %w", err)
	}
	if err := sqliteschema.CreateNamespaces(cfg, ns); err != nil {
		return fmt.Errorf("create namespace %q: %w", namespace, err)
	}
	return nil
}
