package deploy

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/config"

	"github.com/badged/badged/workflows"
)

// cliType is the `temporal operator search-attribute create --type` value of each index type.
var cliType = map[enums.IndexedValueType]string{
	enums.INDEXED_VALUE_TYPE_TEXT:         "Text",
	enums.INDEXED_VALUE_TYPE_KEYWORD:      "Keyword",
	enums.INDEXED_VALUE_TYPE_INT:          "Int",
	enums.INDEXED_VALUE_TYPE_DOUBLE:       "Double",
	enums.INDEXED_VALUE_TYPE_BOOL:         "Bool",
	enums.INDEXED_VALUE_TYPE_DATETIME:     "Datetime",
	enums.INDEXED_VALUE_TYPE_KEYWORD_LIST: "KeywordList",
}

// TestTemporalSetup_RegistersTheWorkflowSearchAttributes compares the search attributes temporal-setup registers
// with the ones the issuance workflows set: a missing one makes every issuance start fail on the cluster.
func TestTemporalSetup_RegistersTheWorkflowSearchAttributes(t *testing.T) {
	want := map[string]string{}
	for name, typ := range workflows.SearchAttributeTypes() {
		require.Contains(t, cliType, typ, name)
		want[name] = cliType[typ]
	}
	got := map[string]string{}
	f, err := os.Open("temporal/namespace.sh")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == "search_attribute" {
			got[fields[1]] = fields[2]
		}
	}
	require.NoError(t, sc.Err())
	require.Equal(t, want, got)
}

// TestTemporal_ImagesMatchTheEmbeddedServer checks that the schema and setup jobs use the admin tools of the
// server's release (the schema must be the one that server expects), and that the stack runs the server and UI
// releases `make run` embeds (go.mod), so both paths run the same Temporal.
func TestTemporal_ImagesMatchTheEmbeddedServer(t *testing.T) {
	p := loadStack(t)
	server := moduleVersion(t, "go.temporal.io/server")
	ui := moduleVersion(t, "github.com/temporalio/ui-server/v2")
	require.Equal(t, "temporalio/server:"+server, p.Services["temporal"].Image)
	require.Equal(t, "temporalio/admin-tools:"+server, p.Services["temporal-schema"].Image)
	require.Equal(t, "temporalio/admin-tools:"+server, p.Services["temporal-setup"].Image)
	require.Equal(t, "temporalio/ui:"+ui, p.Services["temporal-ui"].Image)

	for svc, script := range map[string]string{"temporal-schema": "schema.sh", "temporal-setup": "namespace.sh"} {
		s := p.Services[svc]
		requireMount(t, s, "temporal", "/deploy/temporal")
		require.Equal(t, []string{"sh", "/deploy/temporal/" + script}, []string(s.Entrypoint), svc)
	}
	dyn := envOf(p.Services["temporal"])["DYNAMIC_CONFIG_FILE_PATH"]
	requireMount(t, p.Services["temporal"], "temporal/dynamicconfig.yaml", dyn)
}

// moduleVersion reads a requirement's version from the repository's go.mod, without its "v".
func moduleVersion(t *testing.T, module string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == module {
			return strings.TrimPrefix(fields[1], "v")
		}
	}
	t.Fatalf("go.mod does not require %s", module)
	return ""
}

// TestTemporalConfig_ComposeAndClusterShareIt loads deploy/temporal/config.yaml with Temporal's own loader, as the
// server does, once with the compose stack's environment and once with what deploy/cluster gives each process:
// both render a valid configuration on Postgres with the ports and databases each names. The compose stack must
// run the server from this file.
func TestTemporalConfig_ComposeAndClusterShareIt(t *testing.T) {
	p := loadStack(t)
	s := p.Services["temporal"]
	env := envOf(s)
	requireMount(t, s, "temporal/config.yaml", env["TEMPORAL_SERVER_CONFIG_FILE_PATH"])

	t.Run("compose", func(t *testing.T) {
		for k, v := range env {
			t.Setenv(k, v)
		}
		cfg, err := config.Load(config.WithConfigFile("temporal/config.yaml"))
		require.NoError(t, err)
		sql := cfg.Persistence.DataStores[cfg.Persistence.DefaultStore].SQL
		require.Equal(t, "postgres12", sql.PluginName)
		require.Equal(t, "postgres:5432", sql.ConnectAddr)
		require.Equal(t, "temporal", sql.DatabaseName)
		require.Equal(t, "temporal_visibility", cfg.Persistence.DataStores[cfg.Persistence.VisibilityStore].SQL.DatabaseName)
		require.Equal(t, 7233, cfg.Services["frontend"].RPC.GRPCPort)
		require.Equal(t, env["DYNAMIC_CONFIG_FILE_PATH"], cfg.DynamicConfigClient.Filepath)
		require.Equal(t, "0.0.0.0:8000", cfg.Global.Metrics.Prometheus.ListenAddress)
	})
	t.Run("cluster", func(t *testing.T) {
		for k, v := range map[string]string{"POSTGRES_SEEDS": "127.0.0.1", "DB_PORT": "55432", "POSTGRES_USER": "postgres",
			"DBNAME": "temporal_x", "VISIBILITY_DBNAME": "temporal_visibility_x", "BIND_ON_IP": "127.0.0.1",
			"FRONTEND_GRPC_PORT": "17233", "HISTORY_GRPC_PORT": "17234", "HISTORY_MEMBERSHIP_PORT": "16934",
			"PROMETHEUS_ENDPOINT": "127.0.0.1:18001"} {
			t.Setenv(k, v)
		}
		cfg, err := config.Load(config.WithConfigFile("temporal/config.yaml"))
		require.NoError(t, err)
		require.Equal(t, "127.0.0.1:55432", cfg.Persistence.DataStores["default"].SQL.ConnectAddr)
		require.Equal(t, "temporal_x", cfg.Persistence.DataStores["default"].SQL.DatabaseName)
		require.Equal(t, "temporal_visibility_x", cfg.Persistence.DataStores["visibility"].SQL.DatabaseName)
		require.Equal(t, 17234, cfg.Services["history"].RPC.GRPCPort)
		require.Equal(t, 16934, cfg.Services["history"].RPC.MembershipPort)
		require.Equal(t, "127.0.0.1:17233", cfg.ClusterMetadata.ClusterInformation["active"].RPCAddress)
	})
}
