package metrics

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
)

// timerBuckets are the latency buckets (seconds) of the Temporal SDK's timers: polls take up to a minute.
var timerBuckets = []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

// TemporalHandler returns a client.MetricsHandler (pass it as client.Options.MetricsHandler) that exports the
// Temporal SDK's metrics (temporal_request, temporal_activity_execution_latency, …) on this registry: counters
// and gauges keep the SDK's names, timers become histograms named <name>_seconds. Tags become labels; the SDK tags
// are bounded (namespace, task_queue, workflow_type, activity_type, operation, …).
func (m *Metrics) TemporalHandler() client.MetricsHandler {
	s := &sdkStore{series: map[string]*sdkSeries{}}
	m.Registry.MustRegister(s)
	return &sdkHandler{store: s}
}

type sdkKind int

const (
	kindCounter sdkKind = iota
	kindGauge
	kindTimer
)

// sdkSeries is one metric name with one tag set.
type sdkSeries struct {
	kind    sdkKind
	name    string
	tags    map[string]string
	value   float64 // counter total or gauge value
	count   uint64  // timer observations
	sum     float64 // timer seconds
	buckets []uint64
}

// sdkStore is an unchecked collector: the SDK decides names and tags at run time, so nothing is known up front.
type sdkStore struct {
	mu     sync.Mutex
	series map[string]*sdkSeries
}

func (s *sdkStore) get(kind sdkKind, name string, tags map[string]string) *sdkSeries {
	var b strings.Builder
	b.WriteString(name)
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		b.WriteString("\xff" + k + "=" + tags[k])
	}
	id := b.String()
	s.mu.Lock()
	defer s.mu.Unlock()
	if se, ok := s.series[id]; ok {
		return se
	}
	se := &sdkSeries{kind: kind, name: name, tags: tags}
	if kind == kindTimer {
		se.buckets = make([]uint64, len(timerBuckets))
	}
	s.series[id] = se
	return se
}

func (s *sdkStore) Describe(chan<- *prometheus.Desc) {} // unchecked: see sdkStore

func (s *sdkStore) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Every series of one name gets the union of the label names seen for it (absent ones empty), which keeps a
	// metric family consistent even when the SDK tags a name differently at different call sites.
	labels := map[string]map[string]bool{}
	kinds := map[string]sdkKind{}
	for _, se := range s.series {
		if labels[se.name] == nil {
			labels[se.name] = map[string]bool{}
		}
		kinds[se.name] = se.kind
		for k := range se.tags {
			labels[se.name][sanitize(k)] = true
		}
	}
	descs := map[string]*prometheus.Desc{}
	names := map[string][]string{}
	for name, set := range labels {
		ln := make([]string, 0, len(set))
		for k := range set {
			ln = append(ln, k)
		}
		sort.Strings(ln)
		names[name] = ln
		full, help := sanitize(name), "Temporal SDK counter "+name+"."
		switch kinds[name] {
		case kindGauge:
			help = "Temporal SDK gauge " + name + "."
		case kindTimer:
			full, help = full+"_seconds", "Temporal SDK timer "+name+", in seconds."
		}
		descs[name] = prometheus.NewDesc(full, help, ln, nil)
	}
	for _, se := range s.series {
		if se.kind != kinds[se.name] {
			continue // the same name used as two kinds: keep the family well-formed
		}
		ln := names[se.name]
		vals := make([]string, len(ln))
		for k, v := range se.tags {
			vals[sort.SearchStrings(ln, sanitize(k))] = v
		}
		d := descs[se.name]
		switch se.kind {
		case kindCounter:
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, se.value, vals...)
		case kindGauge:
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, se.value, vals...)
		case kindTimer:
			cum := make(map[float64]uint64, len(timerBuckets))
			var n uint64
			for i, ub := range timerBuckets {
				n += se.buckets[i]
				cum[ub] = n
			}
			ch <- prometheus.MustNewConstHistogram(d, se.count, se.sum, cum, vals...)
		}
	}
}

// sanitize maps a name onto the Prometheus charset [a-zA-Z0-9_].
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

type sdkHandler struct {
	store *sdkStore
	tags  map[string]string
}

func (h *sdkHandler) WithTags(tags map[string]string) client.MetricsHandler {
	merged := make(map[string]string, len(h.tags)+len(tags))
	for k, v := range h.tags {
		merged[k] = v
	}
	for k, v := range tags {
		merged[k] = v
	}
	return &sdkHandler{store: h.store, tags: merged}
}

func (h *sdkHandler) Counter(name string) client.MetricsCounter {
	se := h.store.get(kindCounter, name, h.tags)
	return counterFunc(func(d int64) {
		h.store.mu.Lock()
		se.value += float64(d)
		h.store.mu.Unlock()
	})
}

func (h *sdkHandler) Gauge(name string) client.MetricsGauge {
	se := h.store.get(kindGauge, name, h.tags)
	return gaugeFunc(func(v float64) {
		h.store.mu.Lock()
		se.value = v
		h.store.mu.Unlock()
	})
}

func (h *sdkHandler) Timer(name string) client.MetricsTimer {
	se := h.store.get(kindTimer, name, h.tags)
	return timerFunc(func(d time.Duration) {
		sec := d.Seconds()
		i := sort.SearchFloat64s(timerBuckets, sec) // first bucket with upper bound >= sec
		h.store.mu.Lock()
		se.count++
		se.sum += sec
		if i < len(se.buckets) {
			se.buckets[i]++
		}
		h.store.mu.Unlock()
	})
}

type counterFunc func(int64)

func (f counterFunc) Inc(d int64) { f(d) }

type gaugeFunc func(float64)

func (f gaugeFunc) Update(v float64) { f(v) }

type timerFunc func(time.Duration)

func (f timerFunc) Record(d time.Duration) { f(d) }
