package metrics

import "github.com/prometheus/client_golang/prometheus"

// statsMetrics count what happens to badges after issue (internal/stats): events by kind and agent, and how the
// recorder's flushes to Postgres fare.
type statsMetrics struct {
	events  *prometheus.CounterVec
	flushes *prometheus.CounterVec
	dropped prometheus.Counter
}

func newStatsMetrics(reg *prometheus.Registry) statsMetrics {
	s := statsMetrics{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "badge",
			Name: "events_total", Help: "Events about issued badges (view, verify_api, pdf, share_<network>), by kind and agent (human or bot, by User-Agent)."},
			[]string{"kind", "agent"}),
		flushes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "stats",
			Name: "flushes_total", Help: "Flushes of the badge event counters to Postgres, by outcome (ok, error)."}, []string{"outcome"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "stats",
			Name: "dropped_total", Help: "Badge event counters dropped because too many were held while flushes failed."}),
	}
	reg.MustRegister(s.events, s.flushes, s.dropped)
	return s
}

// BadgeEvent counts one event about an issued badge.
func (m *Metrics) BadgeEvent(kind string, bot bool) {
	if m == nil {
		return
	}
	agent := "human"
	if bot {
		agent = "bot"
	}
	m.stats.events.WithLabelValues(kind, agent).Inc()
}

// StatsFlushed counts one flush of the event counters.
func (m *Metrics) StatsFlushed(ok bool) {
	if m == nil {
		return
	}
	outcome := "ok"
	if !ok {
		outcome = "error"
	}
	m.stats.flushes.WithLabelValues(outcome).Inc()
}

// StatsDropped counts n counters dropped.
func (m *Metrics) StatsDropped(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.stats.dropped.Add(float64(n))
}
