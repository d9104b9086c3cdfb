// Package setup registers what badged needs on a Temporal cluster: its namespace and the search attributes of its
// workflows. The embedded server (temporal/devserver) and the local cluster (deploy/cluster) both use it.
//
// It imports nothing of the module.
package setup

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"
)

// EnsureNamespace registers namespace on a Temporal cluster unless it exists, with retention as its workflow
// retention period; an existing namespace is kept as it is. It is what deploy/temporal/namespace.sh does with the
// temporal CLI, for `make cluster` (deploy/cluster), which has no CLI.
func EnsureNamespace(ctx context.Context, c client.Client, namespace string, retention time.Duration) error {
	ns := c.WorkflowService()
	_, err := ns.DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
	var notFound *serviceerror.NamespaceNotFound
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &notFound):
		return fmt.Errorf("describe namespace %s: %w", namespace, err)
	}
	_, err = ns.RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{Namespace: namespace,
		WorkflowExecutionRetentionPeriod: durationpb.New(retention)})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register namespace %s: %w", namespace, err)
	}
	return nil
}

// EnsureSearchAttributes adds the custom search attributes the namespace lacks (workflows.SearchAttributeTypes for
// badged's workflows). A name that exists with another type is an error, since visibility cannot retype a column.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string, want map[string]enums.IndexedValueType) error {
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

// MissingSearchAttributes lists, sorted, the attributes of want the namespace lacks or has with another type: a
// workflow that upserts one fails its workflow task until it is registered.
func MissingSearchAttributes(ctx context.Context, c client.Client, namespace string, want map[string]enums.IndexedValueType) ([]string, error) {
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return nil, fmt.Errorf("list search attributes: %w", err)
	}
	var missing []string
	for name, typ := range want {
		if got, ok := have.GetCustomAttributes()[name]; !ok || got != typ {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	return missing, nil
}
