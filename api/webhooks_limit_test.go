package api_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
)

// TestWebhooks_LimitHoldsUnderConcurrency: 40 concurrent creates for one organization leave exactly 20 endpoints;
// the other 20 are refused with 400 COM006. (Counting then inserting in the handler left 24.) Another
// organization's endpoints do not count.
func TestWebhooks_LimitHoldsUnderConcurrency(t *testing.T) {
	f := newFixture(t)
	f.mustOK(t, http.MethodPost, "/public/v3/webhooks", f.keys["otherManager"], `{"url":"https://93.184.215.14/other"}`)

	const n = 40
	results := make([]response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = f.do(t, http.MethodPost, "/public/v3/webhooks", f.keys["manager"],
				fmt.Sprintf(`{"url":"https://93.184.215.14/hook/%d"}`, i))
		}()
	}
	close(start)
	wg.Wait()

	created, refused := 0, 0
	for _, r := range results {
		switch r.Status {
		case http.StatusOK:
			created++
		default:
			requireError(t, r, "/public/v3/webhooks", http.StatusBadRequest, "COM006")
			require.Contains(t, r.Body["error"].(map[string]any)["message"], "at most 20 webhook endpoints")
			refused++
		}
	}
	require.Equal(t, db.MaxWebhookEndpoints, created)
	require.Equal(t, n-db.MaxWebhookEndpoints, refused)
	require.Equal(t, db.MaxWebhookEndpoints, countRows(t, f.d, "webhook_endpoints", f.org))
	require.Equal(t, 1, countRows(t, f.d, "webhook_endpoints", f.other))
	list := f.mustOK(t, http.MethodGet, "/public/v3/webhooks", f.keys["manager"], "")
	require.Len(t, list["items"], db.MaxWebhookEndpoints)

	// Deleting one makes room for one.
	id := jstr(t, list, "items.0.id")
	f.mustOK(t, http.MethodDelete, "/public/v3/webhooks/"+id, f.keys["manager"], "")
	f.mustOK(t, http.MethodPost, "/public/v3/webhooks", f.keys["manager"], `{"url":"https://93.184.215.14/again"}`)
	r := f.do(t, http.MethodPost, "/public/v3/webhooks", f.keys["manager"], `{"url":"https://93.184.215.14/one-too-many"}`)
	requireError(t, r, "/public/v3/webhooks", http.StatusBadRequest, "COM006")
}
