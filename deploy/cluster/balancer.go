package cluster

import (
	"context"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Balancer is the cluster's load balancer: it sends each request to the next API process, round-robin, among
// those whose /readyz answered 200 at the last check, as a load balancer with health checks does. With none
// ready it answers 502.
type Balancer struct {
	backends []*url.URL
	proxies  []*httputil.ReverseProxy
	next     atomic.Uint64

	mu    sync.RWMutex
	ready []bool
}

// NewBalancer returns a balancer over the backends' base URLs.
func NewBalancer(backends []*url.URL) *Balancer {
	b := &Balancer{backends: backends, ready: make([]bool, len(backends))}
	for i := range b.ready {
		b.ready[i] = true // until the first check says otherwise
	}
	for _, u := range backends {
		b.proxies = append(b.proxies, &httputil.ReverseProxy{
			Rewrite: func(r *httputil.ProxyRequest) {
				r.SetURL(u)
				r.Out.Host = r.In.Host // the APIs build links from PUBLIC_BASE_URL, not Host
				r.SetXForwarded()
			},
		})
	}
	return b
}

// Check asks every backend's /readyz every interval until ctx ends.
func (b *Balancer) Check(ctx context.Context, interval time.Duration) {
	for {
		for i, u := range b.backends {
			status, err := get(ctx, u.String()+"/readyz")
			b.mu.Lock()
			b.ready[i] = err == nil && status == http.StatusOK
			b.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// ServeHTTP forwards r to the next ready backend.
func (b *Balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := b.next.Add(1)
	b.mu.RLock()
	pick := -1
	for k := range uint64(len(b.backends)) {
		if i := int((start + k) % uint64(len(b.backends))); b.ready[i] {
			pick = i
			break
		}
	}
	b.mu.RUnlock()
	if pick < 0 {
		http.Error(w, "no API process is ready", http.StatusBadGateway)
		return
	}
	b.proxies[pick].ServeHTTP(w, r)
}
