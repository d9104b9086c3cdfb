package cluster

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// backend is an API process stand-in whose /readyz answers as ready says and that counts the other requests.
func backend(t *testing.T, ready *atomic.Bool, served *atomic.Int64) *url.URL {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" {
			if !ready.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
			return
		}
		served.Add(1)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u
}

func TestBalancer_RoundRobinOverReadyBackends(t *testing.T) {
	var ready [2]atomic.Bool
	var served [2]atomic.Int64
	ready[0].Store(true)
	ready[1].Store(true)
	b := NewBalancer([]*url.URL{backend(t, &ready[0], &served[0]), backend(t, &ready[1], &served[1])})
	lb := httptest.NewServer(b)
	t.Cleanup(lb.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go b.Check(ctx, 10*time.Millisecond)

	get := func() int {
		res, err := http.Get(lb.URL + "/public/v3/issuances")
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	for range 10 {
		require.Equal(t, http.StatusOK, get())
	}
	require.EqualValues(t, 5, served[0].Load())
	require.EqualValues(t, 5, served[1].Load())

	// Backend 2 stops being ready (draining): once checked, everything goes to backend 1.
	ready[1].Store(false)
	require.Eventually(t, func() bool { b.mu.RLock(); defer b.mu.RUnlock(); return !b.ready[1] }, 5*time.Second, 5*time.Millisecond)
	for range 6 {
		require.Equal(t, http.StatusOK, get())
	}
	require.EqualValues(t, 11, served[0].Load())
	require.EqualValues(t, 5, served[1].Load())

	ready[0].Store(false)
	require.Eventually(t, func() bool { b.mu.RLock(); defer b.mu.RUnlock(); return !b.ready[0] }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, http.StatusBadGateway, get(), "none ready")
}
