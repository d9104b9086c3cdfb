package deploy

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/sirupsen/logrus"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
)

// repoRoot is the directory of docker-compose.yml and the Dockerfile, relative to this package.
const repoRoot = ".."

// loadCompose loads a compose file the way `docker compose config` does, with the same library: schema
// validation, interpolation (from an empty environment, so the host cannot change the result), YAML anchors and
// merges, normalization and the consistency checks (depends_on targets, named volumes). Warnings the library logs
// (an unset variable, an obsolete key) are returned as an error too.
func loadCompose(file string) (*types.Project, error) {
	var warnings bytes.Buffer
	logrus.SetOutput(&warnings)
	defer logrus.SetOutput(os.Stderr)
	opts, err := cli.NewProjectOptions([]string{file}, cli.WithWorkingDirectory(filepath.Dir(file)),
		cli.WithResolvedPaths(true))
	if err != nil {
		return nil, err
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		return nil, err
	}
	if warnings.Len() > 0 {
		return nil, &composeWarning{strings.TrimSpace(warnings.String())}
	}
	return p, nil
}

type composeWarning struct{ text string }

func (w *composeWarning) Error() string { return "compose loader warned: " + w.text }

func loadStack(t *testing.T) *types.Project {
	t.Helper()
	p, err := loadCompose(filepath.Join(repoRoot, "docker-compose.yml"))
	require.NoError(t, err)
	return p
}

// requiredServices are the parts issue 5 asks of the stack, by service name.
var requiredServices = map[string]string{
	"postgres":        "Postgres",
	"temporal-schema": "Temporal schema job (Postgres-backed)",
	"temporal":        "Temporal server",
	"temporal-setup":  "Temporal namespace and search attributes",
	"temporal-ui":     "Temporal UI",
	"s3":              "S3-compatible store",
	"s3-init":         "bucket creation",
	"mailpit":         "SMTP catcher with a web UI",
	"chain":           "EVM dev chain",
	"prometheus":      "Prometheus",
	"grafana":         "Grafana",
	"migrate":         "one-shot migrate",
	"api":             "badged API",
	"worker":          "badged worker",
}

func TestCompose_LoadsAndHasEveryService(t *testing.T) {
	p := loadStack(t)
	require.Equal(t, "badged", p.Name)
	for name, what := range requiredServices {
		_, ok := p.Services[name]
		require.True(t, ok, "service %q (%s) missing", name, what)
	}
	for name, s := range p.Services {
		require.True(t, s.Image != "" || s.Build != nil, "service %s has neither image nor build", name)
		if s.Image != "" {
			// A pinned tag, never latest: the stack must start the same way next month.
			_, tag, ok := strings.Cut(strings.TrimPrefix(s.Image, "ghcr.io/"), ":")
			require.True(t, ok && tag != "" && tag != "latest", "service %s: image %q needs a pinned tag", name, s.Image)
		}
	}
}

// TestCompose_StartOrder checks the depends_on graph: every target exists, one-shot jobs are waited for until they
// succeed, and api and worker start only after the database is migrated, Temporal has its namespace and search
// attributes, the bucket exists and the chain answers.
func TestCompose_StartOrder(t *testing.T) {
	p := loadStack(t)
	for name, s := range p.Services {
		for dep, d := range s.DependsOn {
			_, ok := p.Services[dep]
			require.True(t, ok, "%s depends on unknown service %s", name, dep)
			if oneShot(dep) {
				require.Equal(t, types.ServiceConditionCompletedSuccessfully, d.Condition,
					"%s must wait for the one-shot %s to succeed", name, dep)
			}
		}
	}
	want := map[string]string{
		"postgres":       types.ServiceConditionHealthy,
		"migrate":        types.ServiceConditionCompletedSuccessfully,
		"temporal-setup": types.ServiceConditionCompletedSuccessfully,
		"s3-init":        types.ServiceConditionCompletedSuccessfully,
		"chain":          types.ServiceConditionHealthy,
	}
	for _, svc := range []string{"api", "worker"} {
		for dep, cond := range want {
			d, ok := p.Services[svc].DependsOn[dep]
			require.True(t, ok, "%s must depend on %s", svc, dep)
			require.Equal(t, cond, d.Condition, "%s on %s", svc, dep)
		}
	}
	require.Contains(t, p.Services["worker"].DependsOn, "mailpit", "the worker sends mail through mailpit")
	require.Equal(t, types.ServiceConditionCompletedSuccessfully, p.Services["temporal"].DependsOn["temporal-schema"].Condition)
	require.Equal(t, types.ServiceConditionHealthy, p.Services["temporal-schema"].DependsOn["postgres"].Condition)
	require.Equal(t, types.ServiceConditionHealthy, p.Services["migrate"].DependsOn["postgres"].Condition)
	for _, svc := range []string{"postgres", "chain"} {
		require.NotNil(t, p.Services[svc].HealthCheck, "%s is waited for as healthy: it needs a healthcheck", svc)
	}
}

func oneShot(name string) bool {
	switch name {
	case "migrate", "temporal-schema", "temporal-setup", "s3-init":
		return true
	}
	return false
}

// TestCompose_BadgedServices checks that migrate, api and worker are built from the repository's Dockerfile, run
// the right subcommand, and get a configuration badged accepts and that fits the other services.
func TestCompose_BadgedServices(t *testing.T) {
	p := loadStack(t)
	root, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	for svc, cmd := range map[string]string{"migrate": "migrate", "api": "serve", "worker": "worker"} {
		s := p.Services[svc]
		require.NotNil(t, s.Build, "%s must be built", svc)
		require.Equal(t, root, s.Build.Context, "%s builds from the repository root", svc)
		require.Equal(t, "Dockerfile", s.Build.Dockerfile, svc)
		require.Equal(t, types.ShellCommand{cmd}, s.Command, svc)
		env := envOf(s)
		for _, name := range []string{"DATABASE_URL", "TEMPORAL_ADDRESS", "ISSUER_KEY_RING", "CHAIN_RPC_URL",
			"CHAIN_PRIVATE_KEY", "SMTP_HOST", "BLOB_BACKEND", "S3_BUCKET", "PUBLIC_BASE_URL"} {
			require.NotEmpty(t, env[name], "%s: %s", svc, name)
		}
		_, err := credential.NewKeyring(env["ISSUER_KEY_RING"])
		require.NoError(t, err, "%s: ISSUER_KEY_RING must be kid:base64(32 bytes)", svc)
		require.Contains(t, []string{"mandatory", "opportunistic", "none"}, env["SMTP_TLS"], svc)
		require.Equal(t, "s3", env["BLOB_BACKEND"], svc)
		require.Equal(t, "true", env["S3_PATH_STYLE"], "%s: the S3 store is addressed by path", svc)

		// The addresses name the services that serve them.
		requireServiceURL(t, p, svc, "DATABASE_URL", env["DATABASE_URL"], "postgres")
		requireServiceURL(t, p, svc, "CHAIN_RPC_URL", env["CHAIN_RPC_URL"], "chain")
		requireServiceURL(t, p, svc, "S3_ENDPOINT", env["S3_ENDPOINT"], "s3")
		requireServiceHostPort(t, p, svc, "TEMPORAL_ADDRESS", env["TEMPORAL_ADDRESS"], "temporal")
		requireServiceHostPort(t, p, svc, "SMTP_HOST:SMTP_PORT", env["SMTP_HOST"]+":"+env["SMTP_PORT"], "mailpit")
		require.Equal(t, envOf(p.Services["s3-init"])["S3_BUCKET"], env["S3_BUCKET"], "%s uses the bucket s3-init creates", svc)
		require.Equal(t, envOf(p.Services["temporal-setup"])["TEMPORAL_NAMESPACE"], env["TEMPORAL_NAMESPACE"],
			"%s uses the namespace temporal-setup creates", svc)
	}
	require.Equal(t, "31337", envOf(p.Services["api"])["CHAIN_ID"])
	require.Contains(t, []string(p.Services["chain"].Command), "31337", "the chain runs with the CHAIN_ID badged expects")
}

// TestCompose_BindMountsExist checks that every file or directory the stack mounts from the repository exists:
// `docker compose config` does not look, and a missing one only shows when the container starts.
func TestCompose_BindMountsExist(t *testing.T) {
	p := loadStack(t)
	n := 0
	for name, s := range p.Services {
		for _, v := range s.Volumes {
			if v.Type != types.VolumeTypeBind {
				continue
			}
			_, err := os.Stat(v.Source)
			require.NoError(t, err, "%s mounts %s", name, v.Source)
			require.True(t, v.ReadOnly, "%s mounts %s read-write; the stack only reads repository files", name, v.Source)
			n++
		}
	}
	require.GreaterOrEqual(t, n, 6)
}

// TestCompose_BrokenFileFails makes sure the loader really validates: an unknown depends_on target and an unknown
// key are errors, as in `docker compose config`.
func TestCompose_BrokenFileFails(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown-dependency": "services:\n  api:\n    image: busybox:1.37\n    depends_on: [nothere]\n",
		"unknown-key":        "services:\n  api:\n    image: busybox:1.37\n    restarts: always\n",
	} {
		file := filepath.Join(dir, name+".yml")
		require.NoError(t, os.WriteFile(file, []byte(body), 0o644))
		_, err := loadCompose(file)
		require.Error(t, err, name)
	}
}

// envOf returns a service's environment with unset variables as "".
func envOf(s types.ServiceConfig) map[string]string {
	env := map[string]string{}
	for k, v := range s.Environment {
		if v != nil {
			env[k] = *v
		}
	}
	return env
}
