package metrics

import "github.com/prometheus/client_golang/prometheus"

// ChainRepairCounts is what the chain anchorer's nonce-gap repair has done, by kind.
type ChainRepairCounts struct{ Resent, Filled, Failed, Behind uint64 }

// ChainRepairs reads what the chain anchorer's nonce-gap repair has done; *chain.Anchorer's Repairs method,
// adapted by the caller, satisfies it without this package importing go-ethereum.
type ChainRepairs func() ChainRepairCounts

// chainRepairCollector exposes the anchorer's own counters on each scrape: they live in the anchorer, which
// counts them whether or not a registry exists.
type chainRepairCollector struct {
	read ChainRepairs
	desc *prometheus.Desc
}

// NewChainRepairCollector reports badged_chain_gap_repairs_total by kind: resent (a stored transaction below an
// awaited nonce sent again), filled (an abandoned nonce reservation replaced by a zero-value filler) and failed
// (a gap check that could not complete; the next one retries) and behind (the node lacked transactions recorded as
// mined: it was reset, replaced or rebuilt, and they were sent again). Fillers mean anchors were abandoned: look at
// the recipients that failed with a chain code.
func NewChainRepairCollector(read ChainRepairs) prometheus.Collector {
	return &chainRepairCollector{read: read, desc: prometheus.NewDesc(Namespace+"_chain_gap_repairs_total",
		"Nonce-gap repairs of the chain anchorer, by kind: resent, filled, failed, behind.", []string{"kind"}, nil)}
}

func (c *chainRepairCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *chainRepairCollector) Collect(ch chan<- prometheus.Metric) {
	r := c.read()
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(r.Resent), "resent")
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(r.Filled), "filled")
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(r.Failed), "failed")
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(r.Behind), "behind")
}
