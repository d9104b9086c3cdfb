package metrics

import "github.com/prometheus/client_golang/prometheus"

func newSharePreviewRenders(reg *prometheus.Registry) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "share",
		Name: "preview_renders_total", Help: "Social preview images (1200×630 PNG) rendered; a cached one served again is not counted."})
	reg.MustRegister(c)
	return c
}

// SharePreviewRendered counts a social preview image rendered (a cache miss).
func (m *Metrics) SharePreviewRendered() {
	if m == nil {
		return
	}
	m.sharePreviews.Inc()
}
