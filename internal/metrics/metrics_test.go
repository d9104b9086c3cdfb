package metrics_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/metrics"
)

// scrape serves the registry with promhttp through httptest and returns the text exposition.
func scrape(tb testing.TB, m *metrics.Metrics) string {
	tb.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL)
	require.NoError(tb, err)
	defer res.Body.Close()
	require.Equal(tb, http.StatusOK, res.StatusCode)
	b, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	return string(b)
}

func TestMetrics_ScrapeNamesLabelsHelp(t *testing.T) {
	m := metrics.New()
	m.ObserveHTTP("/public/v3/badges/{badgeId}", http.MethodGet, 200, "v3", 30*time.Millisecond)
	m.IssuanceStarted("v2", "live")
	m.IssuanceFinished("COMPLETED")
	m.IssuanceFinished("FAILED")
	m.RecipientsFinished("FAILED", "DUPLICATE_ISSUANCE", 1)
	m.ObserveActivity("sign", metrics.OutcomeSuccess, "", 1, 10*time.Millisecond)
	m.ObserveActivity("notify", metrics.OutcomeRetry, "remote", 2, time.Second)
	m.GaveUp("notify", "BOUNCED_EMAIL", 2)
	m.GaveUp(metrics.StepIssuance, "INTERNAL_SERVER_ERROR", 1)
	m.GaveUp("sign", "", 5) // a success is no give-up
	text := scrape(t, m)

	for _, want := range []string{
		`badged_http_requests_total{method="GET",route="/public/v3/badges/{badgeId}",status="200",version="v3"} 1`,
		`badged_http_request_duration_seconds_bucket{method="GET",route="/public/v3/badges/{badgeId}",status="200",version="v3",le="0.05"} 1`,
		`badged_issuances_started_total{mode="live",version="v2"} 1`,
		`badged_issuances_finished_total{status="COMPLETED"} 1`,
		`badged_issuances_finished_total{status="FAILED"} 1`,
		`badged_recipients_finished_total{error_code="DUPLICATE_ISSUANCE",state="FAILED"} 1`,
		`badged_activity_attempts_total{class="none",outcome="success",step="sign"} 1`,
		`badged_activity_attempts_total{class="remote",outcome="retry",step="notify"} 1`,
		`badged_activity_retries_total{step="notify"} 1`,
		`badged_activity_duration_seconds_count{outcome="retry",step="notify"} 1`,
		`badged_activity_give_ups_total{error_code="BOUNCED_EMAIL",step="notify"} 2`,
		`badged_activity_give_ups_total{error_code="INTERNAL_SERVER_ERROR",step="issuance"} 1`,
	} {
		require.Contains(t, text, want)
	}
	require.NotContains(t, text, `badged_activity_retries_total{step="sign"}`, "a first attempt is not a retry")
	require.NotContains(t, text, `badged_activity_give_ups_total{error_code="",step="sign"}`, "a success is no give-up")
	requireHelpOnEveryMetric(t, text)
}

// requireHelpOnEveryMetric checks that every exposed family has a non-empty HELP line.
func requireHelpOnEveryMetric(tb testing.TB, text string) {
	tb.Helper()
	help := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "# HELP "); ok {
			name, h, _ := strings.Cut(rest, " ")
			require.NotEmpty(tb, strings.TrimSpace(h), "empty help for %s", name)
			help[name] = true
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, _, _ := strings.Cut(rest, " ")
			require.True(tb, help[name], "no HELP for %s", name)
		}
	}
}

func TestMetrics_NilRecordsNothing(t *testing.T) {
	var m *metrics.Metrics
	m.ObserveHTTP("/healthz", http.MethodGet, 200, "none", time.Millisecond)
	m.IssuanceStarted("v3", "test")
	m.IssuanceFinished("COMPLETED")
	m.RecipientsFinished("RECEIVED", "", 1)
	m.ObserveActivity("sign", metrics.OutcomeFailed, "permanent", 3, time.Millisecond)
	m.GaveUp("sign", "DUPLICATE_ISSUANCE", 1)
}

func TestTemporalHandler_ExportsSDKMetrics(t *testing.T) {
	m := metrics.New()
	h := m.TemporalHandler().WithTags(map[string]string{"namespace": "default", "task_queue": "badged-issuance"})
	h.Counter("temporal_request").Inc(2)
	h.WithTags(map[string]string{"operation": "PollActivityTaskQueue"}).Counter("temporal_request").Inc(1)
	h.Gauge("temporal_worker_task_slots_available").Update(7)
	h.Timer("temporal_activity_execution_latency").Record(30 * time.Millisecond)
	text := scrape(t, m)

	for _, want := range []string{
		`temporal_request{namespace="default",operation="",task_queue="badged-issuance"} 2`,
		`temporal_request{namespace="default",operation="PollActivityTaskQueue",task_queue="badged-issuance"} 1`,
		`temporal_worker_task_slots_available{namespace="default",task_queue="badged-issuance"} 7`,
		`temporal_activity_execution_latency_seconds_bucket{namespace="default",task_queue="badged-issuance",le="0.05"} 1`,
		`temporal_activity_execution_latency_seconds_count{namespace="default",task_queue="badged-issuance"} 1`,
		`# HELP temporal_request Temporal SDK counter temporal_request.`,
	} {
		require.Contains(t, text, want)
	}
	requireHelpOnEveryMetric(t, text)
}

// TestStuckCollector_CountsOldProcessingIssuances runs the collector's query against the local Postgres: an
// issuance PROCESSING for two hours is stuck under a 30-minute threshold, a fresh one and a COMPLETED old one
// are not.
func TestStuckCollector_CountsOldProcessingIssuances(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	org, badge, program, image := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	_, err := d.CreateOrganization(ctx, db.CreateOrganizationParams{ID: org, Name: "Stuck Org", Credits: 10})
	require.NoError(t, err)
	_, err = d.CreateMediaFile(ctx, db.CreateMediaFileParams{ID: image, OrgID: org, ContentType: "image/png",
		Ext: "png", Width: 1, Height: 1, SizeBytes: 4})
	require.NoError(t, err)
	_, err = d.CreateProgram(ctx, db.CreateProgramParams{ID: program, OrgID: org, Name: "Program", CategoryCode: "ETC", ImageID: image})
	require.NoError(t, err)
	_, err = d.CreateBadge(ctx, db.CreateBadgeParams{ID: badge, OrgID: org, Name: "Badge", Description: "d",
		Criteria: json.RawMessage(`[{"category":"ETC","value":"x"}]`), CategoryCode: "ETC", ImageID: image, Skills: json.RawMessage(`[]`)})
	require.NoError(t, err)
	issuance := func(age time.Duration, status string) uuid.UUID {
		id := uuid.New()
		_, err := d.CreateIssuance(ctx, db.CreateIssuanceParams{ID: id, OrgID: org, BadgeID: badge, ProgramID: program,
			ApiVersion: 3, Mode: "live", IdempotencyKey: id.String(), RequestHash: []byte{1}, IssuedAt: time.Now(),
			AssertionCount: 1, CreditsDebited: 1, WorkflowID: "wf-" + id.String()})
		require.NoError(t, err)
		_, err = d.Pool.Exec(ctx, `UPDATE issuances SET created_at = now() - make_interval(secs => $2), processing_status = $3 WHERE id = $1`,
			id, age.Seconds(), status)
		require.NoError(t, err)
		return id
	}
	m := metrics.New()
	m.Registry.MustRegister(metrics.NewStuckCollector(d, 30*time.Minute, nil))

	text := scrape(t, m)
	require.Contains(t, text, "badged_stuck_issuances 0\n")
	require.Contains(t, text, "badged_stuck_issuance_max_age_seconds 0\n")
	require.Contains(t, text, "badged_stuck_issuances_query_ok 1\n")

	stuck := issuance(2*time.Hour, "PROCESSING")
	issuance(time.Minute, "PROCESSING")
	issuance(3*time.Hour, "COMPLETED")
	text = scrape(t, m)
	require.Contains(t, text, "badged_stuck_issuances 1\n")
	age := gaugeValue(t, text, "badged_stuck_issuance_max_age_seconds")
	require.InDelta(t, (2 * time.Hour).Seconds(), age, 60)
	require.NotContains(t, text, stuck.String(), "ids never become labels")
	requireHelpOnEveryMetric(t, text)

	d.Close() // a failing query is a 0 on the ok gauge, not a failed scrape
	text = scrape(t, m)
	require.Contains(t, text, "badged_stuck_issuances_query_ok 0\n")
}

func gaugeValue(tb testing.TB, text, name string) float64 {
	tb.Helper()
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			var f float64
			require.NoError(tb, json.Unmarshal([]byte(v), &f))
			return f
		}
	}
	tb.Fatalf("no sample %s", name)
	return 0
}

func TestChainRepairCollector_ReadsOnScrape(t *testing.T) {
	m := metrics.New()
	var counts metrics.ChainRepairCounts
	m.Registry.MustRegister(metrics.NewChainRepairCollector(func() metrics.ChainRepairCounts { return counts }))
	counts = metrics.ChainRepairCounts{Resent: 3, Filled: 1, Behind: 2}
	text := scrape(t, m)
	require.Contains(t, text, `badged_chain_gap_repairs_total{kind="resent"} 3`)
	require.Contains(t, text, `badged_chain_gap_repairs_total{kind="filled"} 1`)
	require.Contains(t, text, `badged_chain_gap_repairs_total{kind="failed"} 0`)
	require.Contains(t, text, `badged_chain_gap_repairs_total{kind="behind"} 2`)
	requireHelpOnEveryMetric(t, text)
}
