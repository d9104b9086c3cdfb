package api_test

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/blob"
	"github.com/badged/badged/internal/syncbuf"
)

// The access log line of a request names the ids an operator searches by: the organization and key of the caller
// and every id in the path under the route's name for it, while the route stays a pattern. A client-controlled
// path segment is cut short.
func TestAccessLog_CarriesIDs(t *testing.T) {
	d := dbtest.New(t)
	store, err := blob.NewLocal(t.TempDir())
	require.NoError(t, err)
	var logs syncbuf.Buffer
	srv := httptest.NewServer(validateContract(t, api.NewHandler(api.Deps{DB: d, Blob: store, PublicBaseURL: baseURL,
		Log: slog.New(slog.NewJSONHandler(&logs, nil))})))
	e := &env{d: d, srv: srv}
	org := mustOrg(t, d, "Logged Org")
	key, row := mustKey(t, d, org, apikey.RoleManager)
	badge := uuid.NewString()
	require.Equal(t, http.StatusNotFound, e.do(t, http.MethodGet, "/public/v3/badges/"+badge, key, "").Status)
	require.Equal(t, http.StatusBadRequest, e.do(t, http.MethodGet, "/public/v3/assertions/"+strings.Repeat("x", 500), key, "").Status)
	srv.Close()

	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var l map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		if l["msg"] == "http request" {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, 2)
	require.Equal(t, "/public/v3/badges/{badgeId}", lines[0]["route"])
	require.Equal(t, badge, lines[0]["badgeId"])
	require.Equal(t, org.ID.String(), lines[0]["orgId"])
	require.Equal(t, row.ID.String(), lines[0]["keyId"])
	require.Equal(t, strings.Repeat("x", 100)+"…", lines[1]["assertionId"])
}
