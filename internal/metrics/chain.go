package metrics

import "github.com/prometheus/client_golang/prometheus"

// ChainRepairs reads what the chain anchorer's nonce-gap repair has done; *chain.Anchorer's Repairs method,
// adapted by the caller, satisfies it without this package importing go-ethereum.
type ChainRepairs func() (resent, filled, failed uint64)

// chainRepairCollector exposes the anchorer's own counters on each scrape: they live in the anchorer, which
// counts them whether or not a registry exists.
type chainRepairCollector struct {
	read ChainRepairs
	desc *prometheus.Desc
}

// NewChainRepairCollector reports badged_chain_gap_repairs_total by kind: resent (a stored transaction below an
// awaited nonce sent again), filled (an abandoned nonce reservation replaced by a zero-value filler) and failed
// (a gap check that could not complete; the next one retries). Fillers mean anchors were abandoned: look at the
// recipients that failed with a chain code.
func NewChainRepairCollector(read ChainRepairs) prometheus.Collector {
	return &chainRepairCollector{read: read, desc: prometheus.NewDesc(Namespace+"_chain_gap_repairs_total",
		"Nonce-gap repairs of the chain anchorer, by kind: resent, filled, failed.", []string{"kind"}, nil)}
}

func (c *chainRepairCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *chainRepairCollector) Collect(ch chan<- prometheus.Metric) {
	resent, filled, failed := c.read()
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(resent), "resent")
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(filled), "filled")
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(failed), "failed")
}
