package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Webhook attempt outcomes (badged_webhook_attempts_total{outcome}).
const (
	WebhookSuccess      = "success"       // 2xx
	WebhookHTTPError    = "http_error"    // any other status, redirects included
	WebhookNetworkError = "network_error" // no answer: refused, reset, timeout, TLS
	WebhookBlocked      = "blocked"       // the URL policy refused the URL (WEBHOOK_ALLOW_HTTP) or its address (WEBHOOK_ALLOW_PRIVATE)
)

// webhookMetrics are registered by New (metrics.go) through registerWebhook.
type webhookMetrics struct {
	attempts   *prometheus.CounterVec
	deliveries *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	disabled   *prometheus.CounterVec
}

func newWebhookMetrics(reg *prometheus.Registry) webhookMetrics {
	w := webhookMetrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "webhook",
			Name: "attempts_total", Help: "Webhook delivery attempts, by outcome (success, http_error, network_error, blocked)."},
			[]string{"outcome"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "webhook",
			Name: "deliveries_total", Help: "Webhook deliveries finished, by outcome (SUCCEEDED, FAILED after the webhook class's attempts, CANCELLED: endpoint disabled or deleted)."},
			[]string{"outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Subsystem: "webhook",
			Name: "attempt_duration_seconds", Help: "Webhook delivery attempt latency in seconds, by outcome.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"outcome"}),
		disabled: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "webhook",
			Name: "endpoints_disabled_total", Help: "Webhook endpoints disabled for failing, by reason (consecutive_failures, failing_too_long, url_policy)."},
			[]string{"reason"}),
	}
	reg.MustRegister(w.attempts, w.deliveries, w.duration, w.disabled)
	return w
}

// WebhookAttempt records one delivery attempt.
func (m *Metrics) WebhookAttempt(outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.webhook.attempts.WithLabelValues(outcome).Inc()
	m.webhook.duration.WithLabelValues(outcome).Observe(d.Seconds())
}

// WebhookDelivery records a delivery reaching its final status.
func (m *Metrics) WebhookDelivery(status string) {
	if m == nil {
		return
	}
	m.webhook.deliveries.WithLabelValues(status).Inc()
}

// WebhookEndpointDisabled records an endpoint disabled for failing.
func (m *Metrics) WebhookEndpointDisabled(reason string) {
	if m == nil {
		return
	}
	m.webhook.disabled.WithLabelValues(reason).Inc()
}
