package api_test

import (
	"bufio"
	"context"
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

// Answered health checks are logged at Debug, not Info: a balancer's probes were 44% of the API's log lines. A
// failing probe (the database down) is logged as any failure is, and every other route stays at Info.
func TestAccessLog_ProbesOnlyWhenTheyFail(t *testing.T) {
	d := dbtest.New(t)
	store, err := blob.NewLocal(t.TempDir())
	require.NoError(t, err)
	var info, debug syncbuf.Buffer
	log := slog.New(fanout{slog.NewJSONHandler(&info, nil), slog.NewJSONHandler(&debug, &slog.HandlerOptions{Level: slog.LevelDebug})})
	srv := httptest.NewServer(api.NewHandler(api.Deps{DB: d, Blob: store, PublicBaseURL: baseURL, Log: log}))
	defer srv.Close()
	get := func(method, path string) int {
		req, err := http.NewRequest(method, srv.URL+path, nil)
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	for range 5 {
		require.Equal(t, http.StatusOK, get(http.MethodGet, "/healthz"))
		require.Equal(t, http.StatusOK, get(http.MethodGet, "/readyz"))
		require.Equal(t, http.StatusOK, get(http.MethodHead, "/readyz"))
	}
	require.Equal(t, http.StatusUnauthorized, get(http.MethodGet, "/public/v3/organization"))
	d.Close() // the database goes away: /readyz fails
	require.Equal(t, http.StatusServiceUnavailable, get(http.MethodGet, "/readyz"))

	requests := func(buf *syncbuf.Buffer) (lines []map[string]any) {
		sc := bufio.NewScanner(strings.NewReader(buf.String()))
		for sc.Scan() {
			var l map[string]any
			require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
			if l["msg"] == "http request" {
				lines = append(lines, l)
			}
		}
		return lines
	}
	atInfo := requests(&info)
	require.Len(t, atInfo, 2, "only the API request and the failed probe")
	require.EqualValues(t, http.StatusUnauthorized, atInfo[0]["status"])
	require.Equal(t, "INFO", atInfo[0]["level"])
	require.Equal(t, "/readyz", atInfo[1]["route"])
	require.EqualValues(t, http.StatusServiceUnavailable, atInfo[1]["status"])
	require.Equal(t, "ERROR", atInfo[1]["level"])

	atDebug := requests(&debug)
	require.Len(t, atDebug, 17, "at Debug every request is there")
	for _, l := range atDebug[:15] {
		require.Equal(t, "DEBUG", l["level"], l["route"])
	}
}

// fanout is a slog handler that writes each record to every handler enabled for its level.
type fanout []slog.Handler

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range f {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			if err := h.Handle(ctx, r.Clone()); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f fanout) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(attrs)
	}
	return out
}

func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}
