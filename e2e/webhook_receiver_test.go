package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/webhook"
)

// receiver is a webhook endpoint as an integrator writes one: it verifies every request's signature with
// webhook.Verify (a request that fails verification fails the test) and keeps each event once, by webhook-id.
type receiver struct {
	tb  testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	secret   string
	requests []string                   // webhook-id of every request, in arrival order
	events   map[string]webhook.Payload // accepted events by id (deduplicated)
	answer   func(n int) int            // status for the n-th request (1-based); nil answers 200
	hold     func(n int) bool           // true: keep the n-th request open until the client goes away
	changed  chan struct{}              // closed and replaced on every request
	held     chan struct{}              // closed when a held request arrives
}

func newReceiver(tb testing.TB) *receiver {
	r := &receiver{tb: tb, events: map[string]webhook.Payload{}, changed: make(chan struct{}), held: make(chan struct{})}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	tb.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) URL() string { return r.srv.URL + "/hooks" }

func (r *receiver) setSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return // the sender went away mid-body
	}
	r.mu.Lock()
	secret := r.secret
	r.mu.Unlock()
	id, err := webhook.Verify(secret, req.Header, body, webhook.DefaultTolerance, time.Now())
	if err != nil {
		r.tb.Errorf("webhook request failed verification: %v (headers %v)", err, req.Header)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var p webhook.Payload
	if err := json.Unmarshal(body, &p); err != nil || p.ID != id {
		r.tb.Errorf("webhook body %s: id %q, header %q, err %v", body, p.ID, id, err)
	}
	r.mu.Lock()
	r.requests = append(r.requests, id)
	n := len(r.requests)
	hold := r.hold != nil && r.hold(n)
	status := http.StatusOK
	if r.answer != nil {
		status = r.answer(n)
	}
	if hold {
		close(r.held)
	}
	r.notifyLocked()
	r.mu.Unlock()
	if hold {
		<-req.Context().Done() // the sender (a worker being stopped) gives up on this request
		return
	}
	if status >= 200 && status < 300 {
		r.mu.Lock()
		r.events[id] = p
		r.notifyLocked()
		r.mu.Unlock()
	}
	w.WriteHeader(status)
}

func (r *receiver) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// waitFor blocks until cond (called under the receiver's lock) holds, re-checking on every request.
func (r *receiver) waitFor(tb testing.TB, what string, timeout time.Duration, cond func() bool) {
	tb.Helper()
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		ok, changed := cond(), r.changed
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			r.mu.Lock()
			defer r.mu.Unlock()
			tb.Fatalf("webhook receiver: %s not seen within %s; requests %v, events %d", what, timeout, r.requests, len(r.events))
		}
	}
}

// waitEvent waits for an accepted event of type typ whose data field key equals value, and returns it.
func (r *receiver) waitEvent(tb testing.TB, typ, key, value string) webhook.Payload {
	tb.Helper()
	var found webhook.Payload
	r.waitFor(tb, typ+" "+key+"="+value, time.Minute, func() bool {
		for _, p := range r.events {
			var d map[string]any
			if p.Type == typ && json.Unmarshal(p.Data, &d) == nil && d[key] == value {
				found = p
				return true
			}
		}
		return false
	})
	return found
}

// count is how many requests carried webhook-id id.
func (r *receiver) count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, x := range r.requests {
		if x == id {
			n++
		}
	}
	return n
}

// mustWebhook registers url for the tenant through the v3 API and returns the endpoint's id and secret.
func (s *stack) mustWebhook(tb testing.TB, key, url string, events ...string) (string, string) {
	tb.Helper()
	body, err := json.Marshal(map[string]any{"url": url, "events": append([]string{}, events...)})
	require.NoError(tb, err)
	d := s.postJSON(tb, "/public/v3/webhooks", key, nil, string(body)).data(tb)
	secret, _ := d["secret"].(string)
	require.Regexp(tb, `^whsec_[A-Za-z0-9+/]{43}=$`, secret)
	return d["id"].(string), secret
}

// deliveries lists an endpoint's deliveries through the API.
func (s *stack) deliveries(tb testing.TB, key, endpoint string) []map[string]any {
	tb.Helper()
	d := s.get(tb, "/public/v3/webhooks/"+endpoint+"/deliveries?size=100", key, "").data(tb)
	var out []map[string]any
	for _, it := range d["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// mustRoleKey stores a live key of role for org and returns its full text.
func (s *stack) mustRoleKey(tb testing.TB, org db.Organization, role string) string {
	tb.Helper()
	id := uuid.New()
	key, hash, err := apikey.New(id, apikey.ModeLive)
	require.NoError(tb, err)
	_, err = s.DB.CreateAPIKey(context.Background(), db.CreateAPIKeyParams{ID: id, OrgID: org.ID, KeyHash: hash,
		Role: role, Mode: apikey.ModeLive})
	require.NoError(tb, err)
	return key
}

// stringsReader is a request body; "" sends none.
func stringsReader(s string) io.Reader {
	if s == "" {
		return nil
	}
	return strings.NewReader(s)
}
