package devserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/badged/badged/internal/freeport"
)

func TestRunsWorkflowWithActivity(t *testing.T) {
	s := startServer(t, Options{})
	c := dial(t, s)
	startWorker(t, c)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: testTaskQueue}, greetWorkflow, "badge")
	require.NoError(t, err)
	var out string
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, "hello badge", out)
	require.Equal(t, DefaultNamespace, s.Namespace())
}

func TestSearchAttributesRegisteredAndQueryable(t *testing.T) {
	s := startServer(t, Options{Namespace: "badged"})
	c := dial(t, s)
	startWorker(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	resp, err := c.OperatorService().ListSearchAttributes(ctx,
		&operatorservice.ListSearchAttributesRequest{Namespace: "badged"})
	require.NoError(t, err)
	for name, typ := range badgedAttributes {
		require.Equal(t, typ, resp.GetCustomAttributes()[name], name)
	}

	id := runTagged(ctx, t, c, "iss-1")
	other := runTagged(ctx, t, c, "iss-2")
	require.Equal(t, []string{id}, listByIssuance(ctx, t, c, "iss-1"))
	require.Equal(t, []string{other}, listByIssuance(ctx, t, c, "iss-2"))
}

func TestRestartKeepsNamespaceAndHistory(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	first, err := Start(ctx, Options{Dir: dir, Namespace: "badged", SearchAttributes: badgedAttributes, Logger: testLogger()})
	require.NoError(t, err)
	c1 := dial(t, first)
	startWorker(t, c1)
	id := runTagged(ctx, t, c1, "iss-restart")
	listByIssuance(ctx, t, c1, "iss-restart") // visibility caught up before stop
	c1.Close()
	require.NoError(t, first.Stop())
	require.NoError(t, first.Stop(), "second Stop is a no-op")

	// A new free port: only the directory carries the state over.
	second := startServer(t, Options{Dir: dir, Namespace: "badged"})
	c2 := dial(t, second)
	ns, err := c2.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: "badged"})
	require.NoError(t, err)
	require.Equal(t, "badged", ns.GetNamespaceInfo().GetName())

	desc, err := c2.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, enums.WORKFLOW_EXECUTION_STATUS_COMPLETED, desc.GetWorkflowExecutionInfo().GetStatus())
	require.Equal(t, []string{id}, listByIssuance(ctx, t, c2, "iss-restart"))

	// The history is readable, not only the visibility row.
	var out string
	require.NoError(t, c2.GetWorkflow(ctx, id, "").Get(ctx, &out))
	require.Equal(t, "hello iss-restart", out)
}

func TestUIServesHTTP(t *testing.T) {
	s := startServer(t, Options{UIAddr: "127.0.0.1:0"})
	require.NotEmpty(t, s.UIAddr())

	for _, path := range []string{"/", "/namespaces/default/workflows", "/api/v1/namespaces/default"} {
		resp, err := http.Get("http://" + s.UIAddr() + path)
		require.NoError(t, err, path)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", path, body)
		require.NotEmpty(t, body, path)
	}
}

func TestUIAddrInUseFails(t *testing.T) {
	s := startServer(t, Options{UIAddr: "127.0.0.1:0"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Start(ctx, Options{UIAddr: s.UIAddr(), Logger: testLogger()})
	requireListenError(t, err, "ui", s.UIAddr())
}

// A taken frontend port fails the start with the listener's error, before the database in Dir is opened (the
// usual owner of the port is another server on the same Dir).
func TestFrontendAddrInUseFails(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	dir := t.TempDir()
	_, err = Start(context.Background(), Options{Dir: dir, FrontendAddr: l.Addr().String(), Logger: testLogger()})
	requireListenError(t, err, "frontend", l.Addr().String())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "the database was not touched")
}

// A service port taken between the pick and the server's own bind (a race Start cannot close: the server binds
// its listeners itself) is an error too, not the nil listener the server would go on to serve, which panics in a
// goroutine and takes the process down.
func TestServicePortTakenReturnsError(t *testing.T) {
	free, err := freeport.Pick("127.0.0.1", 4)
	require.NoError(t, err)
	p := ports{frontend: free[0], history: free[1], matching: free[2], worker: free[3]}
	taken := net.JoinHostPort("127.0.0.1", strconv.Itoa(p.history))
	l, err := net.Listen("tcp", taken)
	require.NoError(t, err)
	defer l.Close()
	o := (&Options{Logger: testLogger()}).withDefaults()
	_, err = boot(context.Background(), o, serverLogger{l: o.Logger, quiet: new(atomic.Bool), fatal: new(fatalLog)}, "127.0.0.1", p)
	requireListenError(t, err, "history", taken)
}

func requireListenError(t *testing.T, err error, service, addr string) {
	t.Helper()
	var le *ListenError
	require.ErrorAs(t, err, &le)
	require.Equal(t, service, le.Service)
	require.Equal(t, addr, le.Addr)
	require.ErrorIs(t, err, syscall.EADDRINUSE)
	require.Equal(t, service+": listen tcp "+addr+": bind: address already in use", le.Error())
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"untyped attribute", Options{SearchAttributes: map[string]enums.IndexedValueType{"X": enums.INDEXED_VALUE_TYPE_UNSPECIFIED}}, "has no type"},
		{"bad frontend address", Options{FrontendAddr: "nonsense"}, "parse address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Start(context.Background(), tt.o)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// runTagged runs greetWorkflow with the badged search attributes set and
// returns its workflow ID.
func runTagged(ctx context.Context, t *testing.T, c client.Client, issuance string) string {
	t.Helper()
	id := "issuance/" + issuance
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        id,
		TaskQueue: testTaskQueue,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			temporal.NewSearchAttributeKeyKeyword("IssuanceId").ValueSet(issuance),
			temporal.NewSearchAttributeKeyKeyword("OrgId").ValueSet("org-1"),
			temporal.NewSearchAttributeKeyKeyword("BadgeId").ValueSet("badge-1"),
			temporal.NewSearchAttributeKeyKeyword("ApiVersion").ValueSet("v3"),
			temporal.NewSearchAttributeKeyInt64("RecipientCount").ValueSet(3),
		),
	}, greetWorkflow, issuance)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, nil))
	return id
}

// listByIssuance waits for visibility (eventually consistent) to return at
// least one workflow for the issuance and returns the IDs.
func listByIssuance(ctx context.Context, t *testing.T, c client.Client, issuance string) []string {
	t.Helper()
	query := fmt.Sprintf("IssuanceId = %q AND RecipientCount = 3", issuance)
	var ids []string
	require.Eventually(t, func() bool {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query})
		require.NoError(t, err)
		ids = ids[:0]
		for _, e := range resp.GetExecutions() {
			ids = append(ids, e.GetExecution().GetWorkflowId())
		}
		return len(ids) > 0
	}, 20*time.Second, 50*time.Millisecond)
	return ids
}
