package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/metrics"
)

const (
	dashboardFile          = "grafana/dashboards/badged.json"
	dashboardDatasourceUID = "prometheus" // the uid of the provisioned datasource
)

// stuckRow answers the stuck-issuance collector's query without a database.
type stuckRow struct{}

func (stuckRow) StuckIssuances(context.Context, float64) (db.StuckIssuancesRow, error) {
	return db.StuckIssuancesRow{Count: 1, MaxAgeSeconds: 3600}, nil
}

// registeredFamilies returns every badged_* family of internal/metrics with its type. A vector exposes nothing
// until it has a child, so each recording method runs once before the registry is gathered; a new metric needs its
// method called here too, or the dashboard check below cannot see it.
func registeredFamilies(t *testing.T) map[string]dto.MetricType {
	t.Helper()
	m := metrics.New()
	m.Registry.MustRegister(metrics.NewStuckCollector(stuckRow{}, time.Minute, nil))
	m.Registry.MustRegister(metrics.NewChainRepairCollector(func() metrics.ChainRepairCounts { return metrics.ChainRepairCounts{} }))
	m.ObserveHTTP("/healthz", http.MethodGet, http.StatusOK, "none", time.Millisecond)
	m.IssuanceStarted("v3", "live")
	m.IssuanceFinished("COMPLETED")
	m.RecipientsFinished("FAILED", "DUPLICATE_ISSUANCE", 1)
	m.ObserveActivity("sign", metrics.OutcomeRetry, "internal", 2, time.Millisecond) // attempt 2: also a retry
	m.GaveUp("notify", "BOUNCED_EMAIL", 1)
	m.BadgeEvent("view", false)
	m.StatsFlushed(true)
	fams, err := m.Registry.Gather()
	require.NoError(t, err)
	out := map[string]dto.MetricType{}
	for _, f := range fams {
		if strings.HasPrefix(f.GetName(), metrics.Namespace+"_") {
			out[f.GetName()] = f.GetType()
		}
	}
	// The families README "Metrics" documents; fewer means a recording method above stopped producing one.
	require.Len(t, out, 17, "badged_* families gathered: %v", slices.Sorted(maps.Keys(out)))
	return out
}

type dashboard struct {
	UID    string  `json:"uid"`
	Title  string  `json:"title"`
	Panels []panel `json:"panels"`
}

type panel struct {
	ID         int                `json:"id"`
	Type       string             `json:"type"`
	Title      string             `json:"title"`
	Datasource *datasource        `json:"datasource"`
	GridPos    struct{ X, W int } `json:"gridPos"`
	Targets    []struct {
		Expr       string      `json:"expr"`
		Datasource *datasource `json:"datasource"`
	} `json:"targets"`
	Panels []panel `json:"panels"` // a collapsed row keeps its panels here
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

var (
	quoted     = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	metricName = regexp.MustCompile(`\b(?:badged|temporal)_[a-zA-Z0-9_:]*`)
)

// checkDashboard returns every problem of the dashboard: a panel without a query or on another datasource, a
// badged_* name internal/metrics does not register (a histogram only through _bucket, _sum or _count), a badged_*
// family no panel shows, and no Temporal SDK panel at all.
func checkDashboard(data []byte, families map[string]dto.MetricType) []string {
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		return []string{"parse: " + err.Error()}
	}
	var problems []string
	if d.UID == "" || d.Title == "" {
		problems = append(problems, "dashboard needs a uid and a title")
	}
	used := map[string]bool{}
	ids := map[int]bool{}
	temporalPanels := 0
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			if ids[p.ID] {
				problems = append(problems, fmt.Sprintf("panel id %d used twice", p.ID))
			}
			ids[p.ID] = true
			if p.GridPos.X+p.GridPos.W > 24 {
				problems = append(problems, fmt.Sprintf("panel %q is wider than the grid", p.Title))
			}
			if p.Type == "row" {
				walk(p.Panels)
				continue
			}
			if p.Datasource == nil || p.Datasource.UID != dashboardDatasourceUID {
				problems = append(problems, fmt.Sprintf("panel %q: datasource must be uid %q", p.Title, dashboardDatasourceUID))
			}
			if len(p.Targets) == 0 {
				problems = append(problems, fmt.Sprintf("panel %q has no query", p.Title))
			}
			hasTemporal := false
			for _, tg := range p.Targets {
				if strings.TrimSpace(tg.Expr) == "" {
					problems = append(problems, fmt.Sprintf("panel %q has an empty query", p.Title))
				}
				if tg.Datasource != nil && tg.Datasource.UID != dashboardDatasourceUID {
					problems = append(problems, fmt.Sprintf("panel %q: query on datasource %q", p.Title, tg.Datasource.UID))
				}
				for _, name := range metricName.FindAllString(quoted.ReplaceAllString(tg.Expr, `""`), -1) {
					if strings.HasPrefix(name, "temporal_") {
						hasTemporal = true
						continue
					}
					family, ok := resolveFamily(name, families)
					if !ok {
						problems = append(problems, fmt.Sprintf("panel %q: %s is not a metric internal/metrics registers", p.Title, name))
						continue
					}
					used[family] = true
				}
			}
			if hasTemporal {
				temporalPanels++
			}
		}
	}
	walk(d.Panels)
	for _, f := range slices.Sorted(maps.Keys(families)) {
		if !used[f] {
			problems = append(problems, fmt.Sprintf("no panel shows %s", f))
		}
	}
	if temporalPanels == 0 {
		problems = append(problems, "no panel shows the Temporal SDK's temporal_* metrics")
	}
	return problems
}

// resolveFamily maps a series name used in PromQL to its family: counters and gauges by their own name, histograms
// only through their _bucket, _sum and _count series (the bare name selects nothing).
func resolveFamily(name string, families map[string]dto.MetricType) (string, bool) {
	if typ, ok := families[name]; ok {
		return name, typ != dto.MetricType_HISTOGRAM
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if ok && families[base] == dto.MetricType_HISTOGRAM {
			if _, known := families[base]; known {
				return base, true
			}
		}
	}
	return "", false
}

func TestDashboard_MetricsMatchRegistry(t *testing.T) {
	data, err := os.ReadFile(dashboardFile)
	require.NoError(t, err)
	require.Empty(t, checkDashboard(data, registeredFamilies(t)))
}

// TestDashboard_CheckCatchesMistakes feeds the check broken copies of the dashboard: a misspelt metric, a
// histogram queried by its bare name, a family left without a panel.
func TestDashboard_CheckCatchesMistakes(t *testing.T) {
	data, err := os.ReadFile(dashboardFile)
	require.NoError(t, err)
	fams := registeredFamilies(t)

	typo := strings.ReplaceAll(string(data), "badged_issuances_finished_total", "badged_issuance_finished_total")
	problems := checkDashboard([]byte(typo), fams)
	require.True(t, containsText(problems, "badged_issuance_finished_total is not a metric"), "%v", problems)
	require.True(t, containsText(problems, "no panel shows badged_issuances_finished_total"), "%v", problems)

	bare := strings.ReplaceAll(string(data), "badged_activity_duration_seconds_bucket", "badged_activity_duration_seconds")
	problems = checkDashboard([]byte(bare), fams)
	require.True(t, containsText(problems, "badged_activity_duration_seconds is not a metric"), "%v", problems)

	withExtra := map[string]dto.MetricType{"badged_new_total": dto.MetricType_COUNTER}
	for k, v := range fams {
		withExtra[k] = v
	}
	problems = checkDashboard(data, withExtra)
	require.Equal(t, []string{"no panel shows badged_new_total"}, problems)
}

func containsText(list []string, sub string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.Contains(s, sub) })
}

// rowPanels returns the panels of the row titled row: a collapsed row holds them, an open one is followed by them
// up to the next row.
func rowPanels(d dashboard, row string) []panel {
	for i, p := range d.Panels {
		if p.Type != "row" || p.Title != row {
			continue
		}
		if len(p.Panels) > 0 {
			return p.Panels
		}
		var out []panel
		for _, q := range d.Panels[i+1:] {
			if q.Type == "row" {
				break
			}
			out = append(out, q)
		}
		return out
	}
	return nil
}

// TestDashboard_PipelineRowShowsGiveUpsByStepAndCode checks the SRE view of the pipeline (issue 29): attempts,
// retries and give-ups side by side in the "Pipeline activities" row, the give-ups by step and errorCode from a
// counter internal/metrics registers with those two labels.
func TestDashboard_PipelineRowShowsGiveUpsByStepAndCode(t *testing.T) {
	data, err := os.ReadFile(dashboardFile)
	require.NoError(t, err)
	var d dashboard
	require.NoError(t, json.Unmarshal(data, &d))
	exprs := map[string]string{} // title -> first query
	for _, p := range rowPanels(d, "Pipeline activities") {
		if len(p.Targets) > 0 {
			exprs[p.Title] = p.Targets[0].Expr
		}
	}
	require.Contains(t, exprs["Attempts per second by step and outcome"], "badged_activity_attempts_total")
	require.Contains(t, exprs["Retries per second by step"], "badged_activity_retries_total")
	giveUps := exprs["Give-ups by step and errorCode"]
	require.Contains(t, giveUps, "badged_activity_give_ups_total", "the row has the give-ups panel")
	require.Contains(t, giveUps, "sum by (step, error_code)")

	families := registeredFamilies(t)
	require.Equal(t, dto.MetricType_COUNTER, families["badged_activity_give_ups_total"], "the panel's metric exists")
	m := metrics.New()
	m.GaveUp("anchor", "BLOCKCHAIN_TX_REVERTED", 1)
	fams, err := m.Registry.Gather()
	require.NoError(t, err)
	var labels []string
	for _, f := range fams {
		if f.GetName() == "badged_activity_give_ups_total" {
			for _, l := range f.GetMetric()[0].GetLabel() {
				labels = append(labels, l.GetName())
			}
		}
	}
	require.Equal(t, []string{"error_code", "step"}, labels, "the labels the panel groups by")
}
