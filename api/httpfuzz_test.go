package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
)

// TestHTTPFuzz sends generated requests (10,000 by default; HTTP_FUZZ_REQUESTS sets another number, HTTP_FUZZ_SEED
// another seed) to the real handler over the real database, on a server configured as cmd/badged's, across every
// route of both versions: hostile text in every field, query parameter, path parameter and header, wrong types,
// duplicate keys, cut and oversized bodies, unknown methods and routes, and raw requests net/http's client would
// refuse to send. Every answer must be below 500; every error must carry the contract's body; a rejected request
// that could write must leave every table exactly as it was.
func TestHTTPFuzz(t *testing.T) {
	n := 10_000
	if s := os.Getenv("HTTP_FUZZ_REQUESTS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, "HTTP_FUZZ_REQUESTS")
	}
	seed := uint64(20250301)
	if s := os.Getenv("HTTP_FUZZ_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "HTTP_FUZZ_SEED")
	}
	fz := newHTTPFuzz(t, rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
	start := time.Now()
	for range n {
		fz.do(t, fz.g.next())
	}
	t.Logf("HTTP fuzz, seed %d: %d requests (%d raw) in %s; 5xx: %d; rejected writes checked against the tables: %d; statuses: %v",
		seed, fz.sent, fz.raw, time.Since(start).Round(time.Millisecond), fz.fiveXX, fz.checkedWrites, fz.statuses)
	require.Zero(t, fz.fiveXX, "requests answered 5xx")
	require.GreaterOrEqual(t, fz.sent, n)
}

// FuzzHTTP lets the fuzzing engine drive the same generator: its input is the generator's randomness, so coverage
// guides which routes, values and mutations are tried. `go test ./api -run '^$' -fuzz '^FuzzHTTP$' -fuzztime 60s`
func FuzzHTTP(f *testing.F) {
	for _, s := range []string{"", "\x00", "badged", strings.Repeat("\xff", 64)} {
		f.Add([]byte(s))
	}
	fz := newHTTPFuzz(f, rand.New(rand.NewPCG(1, 2)))
	f.Fuzz(func(t *testing.T, in []byte) {
		fz.g.r = rand.New(&bytesSource{b: in, rest: rand.NewPCG(uint64(len(in)), 7)})
		for range 4 {
			fz.do(t, fz.g.next())
		}
	})
}

// bytesSource is a rand.Source reading the fuzz input, then rest (zeros forever would never end rand's
// rejection sampling).
type bytesSource struct {
	b    []byte
	i    int
	rest rand.Source
}

func (s *bytesSource) Uint64() uint64 {
	if s.i >= len(s.b) {
		return s.rest.Uint64()
	}
	var x uint64
	for range 8 {
		x <<= 8
		if s.i < len(s.b) {
			x |= uint64(s.b[s.i])
		}
		s.i++
	}
	return x
}

// httpFuzz is the fixture of the HTTP fuzz test: the server, its generator and what was seen.
type httpFuzz struct {
	f       *issFixture
	g       *reqGen
	client  *http.Client
	snapSQL string // one digest of every table's rows

	sent, raw, fiveXX, checkedWrites int
	statuses                         map[int]int
}

func newHTTPFuzz(tb testing.TB, r *rand.Rand) *httpFuzz {
	tb.Helper()
	f := newIssFixture(tb)
	fz := &httpFuzz{f: f, statuses: map[int]int{}, client: &http.Client{Timeout: 30 * time.Second}}
	ids := map[string][]string{}
	for _, k := range []string{"{image}", "{image2}"} {
		ids["{image}"] = append(ids["{image}"], f.vars[k])
	}
	ids["{program}"] = []string{f.vars["{program}"], f.vars["{program2}"]}
	ids["{badge}"] = []string{f.vars["{badge}"], f.vars["{badge1m}"], f.vars["{badge2}"], f.vars["{fixedBadge}"]}
	ids["{other}"] = []string{f.vars["{otherProgram}"], f.vars["{otherBadge}"], f.vars["{otherImage}"]}
	ids["{missing}"] = []string{uuid.NewString(), uuid.NewString()}
	ids["{org}"] = []string{f.org.ID.String(), f.other.ID.String()}
	// Spare programs and badges for DELETE, so the ones the other requests use stay.
	for i := range 8 {
		ids["{spareProgram}"] = append(ids["{spareProgram}"], f.mustProgram(tb, "manager", fmt.Sprintf("Spare %d", i), f.vars["{image}"]))
		ids["{spareBadge}"] = append(ids["{spareBadge}"], f.mustBadge(tb, "manager", fmt.Sprintf("Spare %d", i), f.vars["{image}"]))
	}
	iss := f.mustIssue(tb, "v3", "{badge}", "manager", "fuzz-setup", f.expand(`{"programId":"{program}","recipients":[`+
		`{"name":"Kim","email":"r1@example.com","receiveType":"EMAIL","sourcedId":"s-1"},`+
		`{"name":"Lee","email":"r2@example.com","receiveType":"EMAIL"}]}`))
	ids["{issuance}"] = []string{jstr(tb, iss, "id")}
	list := f.mustOK(tb, http.MethodGet, "/public/v3/assertions?issuanceId="+ids["{issuance}"][0], f.keys["manager"], "")
	for _, a := range jget(tb, list, "items").([]any) {
		ids["{assertion}"] = append(ids["{assertion}"], jstr(tb, a, "id"))
	}
	require.NotEmpty(tb, ids["{assertion}"])
	fz.g = &reqGen{r: r, ids: ids, keys: f.keys, png: mustPNG(tb, 8, 8, false)}

	fz.snapSQL = tablesDigestSQL(tb, f.d)
	return fz
}

// tablesDigestSQL is a query that answers one digest of every row of every table of the schema: equal digests
// mean nothing was inserted, updated or deleted anywhere.
func tablesDigestSQL(tb testing.TB, d *db.DB) string {
	tb.Helper()
	var tables []string
	rows, err := d.Pool.Query(context.Background(), "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
	require.NoError(tb, err)
	for rows.Next() {
		var name string
		require.NoError(tb, rows.Scan(&name))
		row := "x::text"
		if name == "api_keys" {
			// A key's last use (api/keyuse.go) is written for any request the key authenticated, refused or not:
			// bookkeeping of the key, not a write of the request.
			row = "(to_jsonb(x) - 'last_used_at')::text"
		}
		tables = append(tables, fmt.Sprintf("(SELECT md5(coalesce(string_agg(%s, '|' ORDER BY %s), '')) FROM %q x)", row, row, name))
	}
	require.NoError(tb, rows.Err())
	require.NotEmpty(tb, tables)
	return "SELECT md5(concat_ws(',', " + strings.Join(tables, ", ") + "))"
}

func (fz *httpFuzz) snapshot(tb testing.TB) string {
	tb.Helper()
	var s string
	require.NoError(tb, fz.f.d.Pool.QueryRow(context.Background(), fz.snapSQL).Scan(&s))
	return s
}

// do sends one request and checks its answer.
func (fz *httpFuzz) do(tb testing.TB, req fuzzReq) {
	tb.Helper()
	before := ""
	if req.write {
		before = fz.snapshot(tb)
	}
	status, body, err := fz.send(req)
	fz.sent++
	if req.raw != nil {
		fz.raw++
	}
	if err != nil {
		tb.Fatalf("%s: %v\nrequest: %s", req.route, err, describe(req))
	}
	fz.statuses[status]++
	if status >= 500 {
		fz.fiveXX++
		if fz.fiveXX > 10 {
			return // enough to go on; the count is reported at the end
		}
		tb.Errorf("%s answered %d: %s\nrequest: %s", req.route, status, body, describe(req))
		return
	}
	// The badge page answers people: its 404 is an HTML page (README "The badge page"), not the API's error body.
	if status >= 400 && req.method != http.MethodHead && !strings.HasPrefix(req.route, "GET /verify/") {
		if err := checkErrorBody(status, body); err != nil {
			tb.Fatalf("%s answered %d without the contract's error body: %v\nbody: %.300q\nrequest: %s", req.route, status, err, body, describe(req))
		}
	}
	if req.write && status >= 400 {
		fz.checkedWrites++
		if after := fz.snapshot(tb); after != before {
			tb.Fatalf("%s answered %d but changed rows\nrequest: %s", req.route, status, describe(req))
		}
	}
}

func (fz *httpFuzz) send(req fuzzReq) (int, []byte, error) {
	if req.raw != nil {
		return sendRaw(fz.f.srv.Listener.Addr().String(), req)
	}
	u := fz.f.srv.URL + req.path
	if req.query != "" {
		u += "?" + req.query
	}
	hr, err := http.NewRequestWithContext(context.Background(), req.method, u, bytes.NewReader(req.body))
	if err != nil {
		return 0, nil, fmt.Errorf("build request: %w", err)
	}
	maps.Copy(hr.Header, req.header)
	res, err := fz.client.Do(hr)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res.StatusCode, body, err
}

// sendRaw writes req.raw on a new connection while reading the answer, as a client still sending would.
func sendRaw(addr string, req fuzzReq) (int, []byte, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	go func() { _, _ = c.Write(req.raw) }()
	res, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: req.method})
	if err != nil {
		return 0, nil, fmt.Errorf("read answer: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res.StatusCode, body, err
}

// checkErrorBody checks the contract's error body: success false and an error with exactly timestamp, code,
// message, status (the HTTP status), path and errors (an array of {field, message}).
func checkErrorBody(status int, raw []byte) error {
	var body struct {
		Success *bool                      `json:"success"`
		Error   map[string]json.RawMessage `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		return fmt.Errorf("not the error body: %w", err)
	}
	if body.Success == nil || *body.Success {
		return fmt.Errorf("success is not false")
	}
	if got := slices.Sorted(maps.Keys(body.Error)); !slices.Equal(got, []string{"code", "errors", "message", "path", "status", "timestamp"}) {
		return fmt.Errorf("error has keys %v", got)
	}
	var e struct {
		Timestamp, Code, Message, Path string
		Status                         int
		Errors                         []struct{ Field, Message string }
	}
	b, _ := json.Marshal(body.Error)
	if err := json.Unmarshal(b, &e); err != nil {
		return fmt.Errorf("error fields have the wrong types: %w", err)
	}
	switch {
	case e.Code == "" || e.Message == "" || e.Timestamp == "":
		return fmt.Errorf("empty code, message or timestamp")
	case e.Status != status:
		return fmt.Errorf("error.status %d, HTTP status %d", e.Status, status)
	case e.Errors == nil:
		return fmt.Errorf("error.errors is not an array")
	}
	return nil
}

func describe(req fuzzReq) string {
	if req.raw != nil {
		return fmt.Sprintf("raw %.300q", req.raw)
	}
	return fmt.Sprintf("%s %.300q?%.300q headers %.300q body %.300q", req.method, req.path, req.query, req.header, req.body)
}
