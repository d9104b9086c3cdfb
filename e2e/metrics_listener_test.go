package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMetrics_OwnListener: `badged serve` and `badged worker` serve /metrics on METRICS_ADDR only. The API's port,
// which anyone who reaches the API can call, answers /metrics as the unknown route it is there (404, the contract's
// error body), while the metrics listener counts that very request.
func TestMetrics_OwnListener(t *testing.T) {
	c := newCluster(t, clusterOptions{apis: 1, workers: 1})
	apiURL := strings.TrimSuffix(c.APIs[0].Ready, "/readyz")
	res, err := http.Get(apiURL + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusNotFound, res.StatusCode, "%s", body)
	require.Contains(t, string(body), `"code":"NOT_FOUND"`)
	require.NotContains(t, string(body), "badged_")

	require.Positive(t, c.APIs[0].scrape(t, "badged_http_requests_total", `route="unmatched"`, `status="404"`),
		"the API's metrics listener counted the refused request")
	require.Positive(t, c.APIs[0].scrape(t, "badged_http_requests_total", `route="/readyz"`))
	require.Positive(t, c.Workers[0].scrape(t, "go_goroutines"), "the worker serves its own")
}
