package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/badged/badged/db"
)

// StuckQuerier is the one query the stuck-issuance collector runs; *db.DB satisfies it.
type StuckQuerier interface {
	StuckIssuances(ctx context.Context, olderThanSeconds float64) (db.StuckIssuancesRow, error)
}

// stuckCollector queries Postgres on every scrape, so the gauges are never stale and nothing polls between scrapes.
type stuckCollector struct {
	q         StuckQuerier
	threshold time.Duration
	timeout   time.Duration
	log       *slog.Logger
	count     *prometheus.Desc
	maxAge    *prometheus.Desc
	up        *prometheus.Desc
}

// NewStuckCollector reports issuances PROCESSING for longer than threshold: their count and the age of the oldest.
// A failed query is reported as badged_stuck_issuances_query_ok 0 rather than failing the whole scrape.
func NewStuckCollector(q StuckQuerier, threshold time.Duration, log *slog.Logger) prometheus.Collector {
	if log == nil {
		log = slog.Default()
	}
	return &stuckCollector{q: q, threshold: threshold, timeout: 5 * time.Second, log: log,
		count: prometheus.NewDesc(Namespace+"_stuck_issuances",
			"Issuances still PROCESSING longer than the stuck threshold.", nil, nil),
		maxAge: prometheus.NewDesc(Namespace+"_stuck_issuance_max_age_seconds",
			"Age in seconds of the oldest issuance still PROCESSING beyond the stuck threshold (0 when none).", nil, nil),
		up: prometheus.NewDesc(Namespace+"_stuck_issuances_query_ok",
			"1 when the stuck-issuance query of this scrape succeeded, 0 when it failed.", nil, nil),
	}
}

func (c *stuckCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.count
	ch <- c.maxAge
	ch <- c.up
}

func (c *stuckCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	row, err := c.q.StuckIssuances(ctx, c.threshold.Seconds())
	if err != nil {
		c.log.Warn("metrics: stuck issuance query failed", "err", err)
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(c.count, prometheus.GaugeValue, float64(row.Count))
	ch <- prometheus.MustNewConstMetric(c.maxAge, prometheus.GaugeValue, row.MaxAgeSeconds)
}
