// Package metrics defines every Prometheus metric of badged on one registry: HTTP traffic, issuance and recipient
// outcomes, pipeline activity attempts, issuances stuck in PROCESSING and the Temporal SDK's own metrics. Labels
// are bounded sets (route patterns, steps, error codes), never ids or raw paths, so the series count stays fixed.
//
// It imports only db (the stuck-issuance collector's query).
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every badged metric.
const Namespace = "badged"

// Metrics holds the registry and the metrics the service updates. A nil *Metrics is valid and records nothing,
// so tests and tools that do not care about metrics pass nil.
type Metrics struct {
	// Registry is what /metrics serves; the stuck-issuance collector and the Temporal handler register here too.
	Registry *prometheus.Registry

	httpRequests      *prometheus.CounterVec
	httpDuration      *prometheus.HistogramVec
	issuancesStarted  *prometheus.CounterVec
	issuancesFinished *prometheus.CounterVec
	recipients        *prometheus.CounterVec
	attempts          *prometheus.CounterVec
	retries           *prometheus.CounterVec
	giveUps           *prometheus.CounterVec
	activityDuration  *prometheus.HistogramVec
	webhook           webhookMetrics     // webhook.go
	wallet            *walletMetrics     // wallet.go
	sharePreviews     prometheus.Counter // share.go
	stats             statsMetrics       // stats.go
	signin            signinMetrics      // signin.go
}

// New returns the metrics on a fresh registry that also carries the Go runtime and process collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		Registry: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "http",
			Name: "requests_total", Help: "HTTP requests served, by route pattern, method, status code and API version."},
			[]string{"route", "method", "status", "version"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Subsystem: "http",
			Name: "request_duration_seconds", Help: "HTTP request latency in seconds, by route pattern, method, status code and API version.",
			Buckets: prometheus.DefBuckets}, []string{"route", "method", "status", "version"}),
		issuancesStarted: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "issuances_started_total",
			Help: "Issuances accepted and recorded (idempotent replays excluded), by API version and key mode."},
			[]string{"version", "mode"}),
		issuancesFinished: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "issuances_finished_total",
			Help: "Issuances closed by their workflow, by final status (COMPLETED or FAILED)."}, []string{"status"}),
		recipients: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "recipients_finished_total",
			Help: "Recipients (assertions) given their final state, by state and errorCode (empty when none)."},
			[]string{"state", "error_code"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "activity",
			Name: "attempts_total", Help: "Pipeline activity attempts, by step, outcome (success, retry, failed) and failure class (none on success)."},
			[]string{"step", "outcome", "class"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "activity",
			Name: "retries_total", Help: "Pipeline activity attempts that ran as a retry (attempt > 1), by step."},
			[]string{"step"}),
		giveUps: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "activity",
			Name: "give_ups_total", Help: "Recipients a pipeline step gave up on (an errorCode written as their outcome), by the step that failed (check, sign, anchor, bake, upload, notify; issuance when the run as a whole failed) and errorCode; counted once, when the outcome is written."},
			[]string{"step", "error_code"}),
		activityDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Subsystem: "activity",
			Name: "duration_seconds", Help: "Pipeline activity attempt latency in seconds, by step and outcome.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}}, []string{"step", "outcome"}),
	}
	reg.MustRegister(m.httpRequests, m.httpDuration, m.issuancesStarted, m.issuancesFinished, m.recipients,
		m.attempts, m.retries, m.giveUps, m.activityDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.webhook = newWebhookMetrics(reg)
	m.wallet = newWalletMetrics(reg)
	m.sharePreviews = newSharePreviewRenders(reg)
	m.stats = newStatsMetrics(reg)
	m.signin = newSigninMetrics(reg)
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// ObserveHTTP records one served request. route must be a route pattern, never the raw path.
func (m *Metrics) ObserveHTTP(route, method string, status int, version string, d time.Duration) {
	if m == nil {
		return
	}
	s := strconv.Itoa(status)
	m.httpRequests.WithLabelValues(route, method, s, version).Inc()
	m.httpDuration.WithLabelValues(route, method, s, version).Observe(d.Seconds())
}

// IssuanceStarted counts a newly recorded issuance; version is "v2" or "v3", mode "live" or "test".
func (m *Metrics) IssuanceStarted(version, mode string) {
	if m == nil {
		return
	}
	m.issuancesStarted.WithLabelValues(version, mode).Inc()
}

// IssuanceFinished counts an issuance closed with status COMPLETED or FAILED.
func (m *Metrics) IssuanceFinished(status string) {
	if m == nil {
		return
	}
	m.issuancesFinished.WithLabelValues(status).Inc()
}

// RecipientsFinished counts n recipients reaching a final state with an errorCode ("" when they succeeded).
func (m *Metrics) RecipientsFinished(state, errorCode string, n int) {
	if m == nil || n <= 0 {
		return
	}
	m.recipients.WithLabelValues(state, errorCode).Add(float64(n))
}

// Activity outcomes.
const (
	OutcomeSuccess = "success"
	OutcomeRetry   = "retry"  // failed, Temporal will try again
	OutcomeFailed  = "failed" // failed for good
)

// ObserveActivity records one attempt of a pipeline step. class is the retry-policy class of the failure
// ("none" on success); attempt is Temporal's 1-based attempt number.
func (m *Metrics) ObserveActivity(step, outcome, class string, attempt int, d time.Duration) {
	if m == nil {
		return
	}
	if class == "" {
		class = "none"
	}
	m.attempts.WithLabelValues(step, outcome, class).Inc()
	if attempt > 1 {
		m.retries.WithLabelValues(step).Inc()
	}
	m.activityDuration.WithLabelValues(step, outcome).Observe(d.Seconds())
}

// StepIssuance is the give-up step of the recipients failed because their issuance's run failed as a whole, not at
// one step.
const StepIssuance = "issuance"

// GaveUp counts n recipients whose outcome was written with errorCode after step gave up on them: the SRE view of
// give-ups by step and errorCode (badged_activity_attempts_total{outcome="failed"} has the step and the failure
// class, but not the code, and counts attempts, not recipients).
func (m *Metrics) GaveUp(step, errorCode string, n int) {
	if m == nil || n <= 0 || errorCode == "" {
		return
	}
	m.giveUps.WithLabelValues(step, errorCode).Add(float64(n))
}
