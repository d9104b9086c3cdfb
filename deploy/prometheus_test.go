package deploy

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

type promConfig struct {
	ScrapeConfigs []struct {
		JobName       string `yaml:"job_name"`
		MetricsPath   string `yaml:"metrics_path"`
		StaticConfigs []struct {
			Targets []string `yaml:"targets"`
		} `yaml:"static_configs"`
	} `yaml:"scrape_configs"`
}

// TestPrometheus_ScrapesWhatServicesServe checks every scrape target against the compose file: a service of the
// stack, on a port it declares, and for api and worker the port of badged's metrics listener (METRICS_ADDR), which
// is never the API's (HTTP_ADDR).
func TestPrometheus_ScrapesWhatServicesServe(t *testing.T) {
	p := loadStack(t)
	var cfg promConfig
	readYAML(t, "prometheus/prometheus.yml", &cfg)
	requireMount(t, p.Services["prometheus"], "prometheus/prometheus.yml", "/etc/prometheus/prometheus.yml")

	scraped := map[string]string{} // service → port
	for _, sc := range cfg.ScrapeConfigs {
		require.Contains(t, []string{"", "/metrics"}, sc.MetricsPath, sc.JobName)
		for _, st := range sc.StaticConfigs {
			for _, target := range st.Targets {
				host, port, err := net.SplitHostPort(target)
				require.NoError(t, err, sc.JobName)
				requireServiceHostPort(t, p, "prometheus job "+sc.JobName, "target", target, host)
				scraped[host] = port
			}
		}
	}
	for _, svc := range []string{"api", "worker"} {
		port, ok := scraped[svc]
		require.True(t, ok, "prometheus must scrape %s", svc)
		env := envOf(p.Services[svc])
		host, listen, err := net.SplitHostPort(env["METRICS_ADDR"])
		require.NoError(t, err, "%s: METRICS_ADDR", svc)
		require.Equal(t, listen, port, "%s serves /metrics on METRICS_ADDR", svc)
		require.NotContains(t, []string{"127.0.0.1", "localhost", "::1"}, host, "%s: prometheus scrapes over the network", svc)
		if api, ok := env["HTTP_ADDR"]; ok {
			_, apiPort, err := net.SplitHostPort(api)
			require.NoError(t, err)
			require.NotEqual(t, apiPort, listen, "%s: metrics never on the API's port", svc)
		}
	}
}

// TestGrafana_Provisioning checks that the datasource points at the prometheus service and the dashboard provider
// reads the directory the compose file mounts the dashboards into.
func TestGrafana_Provisioning(t *testing.T) {
	p := loadStack(t)
	g := p.Services["grafana"]
	requireMount(t, g, "grafana/provisioning", "/etc/grafana/provisioning")

	var ds struct {
		Datasources []struct {
			UID  string `yaml:"uid"`
			Type string `yaml:"type"`
			URL  string `yaml:"url"`
		} `yaml:"datasources"`
	}
	readYAML(t, "grafana/provisioning/datasources/prometheus.yml", &ds)
	require.Len(t, ds.Datasources, 1)
	require.Equal(t, "prometheus", ds.Datasources[0].Type)
	require.Equal(t, dashboardDatasourceUID, ds.Datasources[0].UID, "the dashboard refers to the datasource by uid")
	requireServiceURL(t, p, "grafana", "datasource url", ds.Datasources[0].URL, "prometheus")

	var dp struct {
		Providers []struct {
			Type    string `yaml:"type"`
			Options struct {
				Path string `yaml:"path"`
			} `yaml:"options"`
		} `yaml:"providers"`
	}
	readYAML(t, "grafana/provisioning/dashboards/badged.yml", &dp)
	require.Len(t, dp.Providers, 1)
	require.Equal(t, "file", dp.Providers[0].Type)
	requireMount(t, g, "grafana/dashboards", dp.Providers[0].Options.Path)
}

func readYAML(t *testing.T, rel string, v any) {
	t.Helper()
	data, err := os.ReadFile(rel)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, v), rel)
}

// requireMount fails unless the service bind-mounts deploy/<rel> at target.
func requireMount(t *testing.T, s types.ServiceConfig, rel, target string) {
	t.Helper()
	want, err := filepath.Abs(rel)
	require.NoError(t, err)
	for _, v := range s.Volumes {
		if v.Type == types.VolumeTypeBind && v.Source == want {
			require.Equal(t, target, v.Target, "%s: mount of %s", s.Name, rel)
			return
		}
	}
	t.Fatalf("%s does not mount deploy/%s", s.Name, rel)
}
