package devserver

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
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

// ensureSearchAttributes adds the attributes the namespace lacks. It covers
// a Dir created before an attribute was added to Options; a name that exists
// with another type is an error, since visibility cannot retype a column.
func ensureSearchAttributes(ctx context.Context, c client.Client, namespace string, want map[string]enums.IndexedValueType) error {
	if len(want) == 0 {
		return nil
	}
	ops := c.OperatorService()
	have, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes: %w", err)
	}
	missing := map[string]enums.IndexedValueType{}
	for name, typ := range want {
		got, ok := have.GetCustomAttributes()[name]
		if !ok {
			missing[name] = typ
			continue
		}
		if got != typ {
			return fmt.Errorf("search attribute %s is %s, want %s", name, got, typ)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace:        namespace,
		SearchAttributes: maps.Clone(missing),
	})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("add search attributes: %w", err)
	}
	return nil
}
