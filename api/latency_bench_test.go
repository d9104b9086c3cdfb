package api_test

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// latencies collects the durations of one path of a benchmark, for exact percentiles.
type latencies struct {
	name string
	d    []time.Duration
}

// time runs fn once and records how long it took.
func (l *latencies) time(fn func()) {
	start := time.Now()
	fn()
	l.d = append(l.d, time.Since(start))
}

// quantile is the q-quantile (nearest rank) of the recorded durations.
func (l *latencies) quantile(q float64) time.Duration {
	s := slices.Clone(l.d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// report adds p50 and p99 of l as benchmark metrics and logs them.
func (l *latencies) report(b *testing.B) {
	b.Helper()
	b.ReportMetric(ms(l.quantile(0.5)), l.name+"-p50-ms")
	b.ReportMetric(ms(l.quantile(0.99)), l.name+"-p99-ms")
	b.Logf("%-28s n=%-5d p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms", l.name, len(l.d),
		ms(l.quantile(0.5)), ms(l.quantile(0.99)), ms(l.quantile(1)))
}

// reportRatio reports old p99 / new p99: how many times faster the new path is at the tail.
func reportRatio(b *testing.B, old, new *latencies) {
	b.Helper()
	r := ms(old.quantile(0.99)) / ms(new.quantile(0.99))
	b.ReportMetric(r, fmt.Sprintf("x-p99-%s/%s", old.name, new.name))
}
