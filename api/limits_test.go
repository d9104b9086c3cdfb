package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTextChecks: NUL and invalid UTF-8 in a body field, a query parameter, a path parameter or a header the API
// reads are refused naming the field, NUL with COM006 and invalid UTF-8 with COM002, and nothing is written.
func TestTextChecks(t *testing.T) {
	f := newIssFixture(t)
	type tc struct{ method, path, body, field string }
	bodies := []tc{
		{"POST", "/programs", `{"name":"a\u0000b","categoryCode":"EDUCATION","imageId":"{image}"}`, "name"},
		{"PATCH", "/programs/{program}", `{"description":"\u0000"}`, "description"},
		{"POST", "/badges", overlay(t, badgeBody("B", "{image}"), `{"criteria":[{"category":"OTHER","value":"x\u0000"}]}`), "criteria[0].value"},
		{"PATCH", "/badges/{badge}", `{"skills":[{"sourceType":"CUSTOM","skillName":"Go\u0000"}]}`, "skills[0].skillName"},
		{"PATCH", "/badges/{badge}", `{"name":"a\u0000b"}`, "name"},
		{"POST", "/badges/{badge}/issuances", `{"programId":"{program}","recipients":[{"name":"K","email":"a@b.co\u0000","receiveType":"EMAIL"}]}`, "recipients[0].email"},
	}
	tables := []string{"programs", "badges", "issuances", "assertions"}
	count := func() map[string]int {
		out := map[string]int{}
		for _, tb := range tables {
			out[tb] = countRows(t, f.d, tb, f.org)
		}
		return out
	}
	before := count()
	for _, v := range testVersions {
		for _, b := range bodies {
			for _, bad := range []struct{ text, code string }{{`\u0000`, "COM006"}, {"\xff", "COM002"}, {`\ud800`, "COM002"}} {
				path := "/public/" + v + f.expand(b.path)
				body := strings.ReplaceAll(f.expand(b.body), `\u0000`, bad.text)
				r := f.postIssuanceLike(t, b.method, path, body)
				requireError(t, r, path, http.StatusBadRequest, bad.code, b.field)
			}
		}
	}
	require.Equal(t, before, count(), "a refused request wrote rows")

	key := f.keys["manager"]
	for _, c := range []struct {
		name, path, field, code string
		header                  map[string]string
	}{
		{"query NUL", "/public/v3/assertions?email=a%00b", "email", "COM006", nil},
		{"query invalid UTF-8", "/public/v2/assertions?sourcedId=%FF", "sourcedId", "COM002", nil},
		{"query name NUL", "/public/v3/programs?a%00=1", "a\x00", "COM006", nil},
		{"query escape", "/public/v3/programs?page=%zz", "query", "COM002", nil},
		{"path NUL", "/public/v3/programs/%00", "programId", "COM006", nil},
		{"path invalid UTF-8", "/public/v2/badges/%ED%A0%80", "badgeId", "COM002", nil},
		{"unknown path NUL", "/public/v3/nowhere/%00", "path", "COM006", nil},
		{"idempotency key", "/public/v3/badges/{badge}/issuances", "Idempotency-Key", "COM002", map[string]string{"Idempotency-Key": "k\xff"}},
		{"accept", "/verify/{badge}", "Accept", "COM002", map[string]string{"Accept": "text/\xff"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := f.expand(c.path)
			req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, f.srv.URL+u, nil)
			require.NoError(t, err)
			if strings.HasSuffix(u, "/issuances") {
				req.Method = http.MethodPost
			}
			req.Header.Set("X-API-KEY", key)
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			r := roundTrip(t, f.srv.Client(), req)
			// error.path is JSON: invalid UTF-8 in the path reads back as U+FFFD.
			var path string
			b, _ := json.Marshal(req.URL.Path)
			require.NoError(t, json.Unmarshal(b, &path))
			requireError(t, r, path, http.StatusBadRequest, c.code, c.field)
		})
	}
	// An API key with invalid UTF-8 is an invalid key: the contract's 401 SEC065, like any other.
	r := f.do(t, http.MethodGet, "/public/v3/organization", key[:len(key)-1]+"\xc3", "")
	requireError(t, r, "/public/v3/organization", http.StatusUnauthorized, "SEC065")
	require.Equal(t, before, count())
}

// postIssuanceLike sends a JSON request with a fresh Idempotency-Key (needed by issuances, ignored elsewhere).
func (f *issFixture) postIssuanceLike(tb testing.TB, method, path, body string) response {
	tb.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, f.srv.URL+path, strings.NewReader(body))
	require.NoError(tb, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", f.keys["manager"])
	req.Header.Set("Idempotency-Key", fmt.Sprintf("text-%d", time.Now().UnixNano()))
	return roundTrip(tb, f.srv.Client(), req)
}

func roundTrip(tb testing.TB, c *http.Client, req *http.Request) response {
	tb.Helper()
	res, err := c.Do(req)
	require.NoError(tb, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// TestOversizedBody_ClientStillSending: a client that writes its whole 12 MB body before reading (as curl and most
// simple clients do) reads the 413 with the contract's body, instead of a connection reset. A client that waits
// on "Expect: 100-continue" gets the 413 without sending the body.
func TestOversizedBody_ClientStillSending(t *testing.T) {
	f := newFixture(t)
	big := append(append([]byte(`{"name":"`), bytes.Repeat([]byte("x"), 12<<20)...), `"}`...)
	for _, c := range []struct {
		name, path, contentType string
		body                    []byte
	}{
		{"json", "/public/v3/programs", "application/json", big},
		{"image", "/public/v2/media-files/images", "multipart/form-data; boundary=b",
			append(append([]byte("--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\n\r\n"), big...), "\r\n--b--\r\n"...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", f.srv.Listener.Addr().String())
			require.NoError(t, err)
			defer conn.Close()
			require.NoError(t, conn.SetDeadline(time.Now().Add(60*time.Second)))
			head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: t\r\nX-API-KEY: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
				c.path, f.keys["manager"], c.contentType, len(c.body))
			_, err = conn.Write(append([]byte(head), c.body...)) // all of it, before reading anything
			require.NoError(t, err, "the server stopped reading the body")
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err)
			raw, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			r := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
			require.NoError(t, json.Unmarshal(raw, &r.Body), "%s", raw)
			requireError(t, r, c.path, http.StatusRequestEntityTooLarge, "COM006")
		})
	}
	t.Run("expect 100-continue", func(t *testing.T) {
		sent := &countingReader{r: bytes.NewReader(big)}
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, f.srv.URL+"/public/v3/programs", sent)
		require.NoError(t, err)
		req.ContentLength = int64(len(big))
		req.Header.Set("Expect", "100-continue")
		req.Header.Set("X-API-KEY", f.keys["manager"])
		client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 10 * time.Second}}
		r := roundTrip(t, client, req)
		requireError(t, r, "/public/v3/programs", http.StatusRequestEntityTooLarge, "COM006")
		require.Zero(t, sent.n, "the body was sent although the answer came first")
	})
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestServerAnswers: what net/http or the request guard answers before any handler carries the contract's error
// body too, with a 4xx: oversized request target and headers, malformed requests, unknown routes and methods.
func TestServerAnswers(t *testing.T) {
	f := newFixture(t)
	key := f.keys["manager"]
	p := "/public/v3/programs"
	for _, c := range []struct {
		name, raw, path, code string
		status                int
	}{
		{"100,000-character query", "GET " + p + "?email=" + strings.Repeat("a", 100_000) + " HTTP/1.1\r\nHost: t\r\nX-API-KEY: " + key + "\r\n\r\n", p, "COM006", 414},
		{"100,000-character header", "GET " + p + " HTTP/1.1\r\nHost: t\r\nX-Pad: " + strings.Repeat("a", 100_000) + "\r\n\r\n", p, "COM006", 431},
		{"2 MB header (net/http's own 431)", "GET " + p + " HTTP/1.1\r\nHost: t\r\nX-Pad: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", p, "COM006", 431},
		{"NUL in a header", "GET " + p + " HTTP/1.1\r\nHost: t\r\nX-API-KEY: a\x00b\r\n\r\n", p, "COM002", 400},
		{"no Host", "GET " + p + " HTTP/1.1\r\nX-API-KEY: " + key + "\r\n\r\n", p, "COM002", 400},
		{"unknown transfer coding (net/http: 501)", "POST " + p + " HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", p, "COM002", 400},
		{"HTTP/2.0 request line (net/http: 505)", "GET /public/v2/programs HTTP/2.0\r\nHost: t\r\n\r\n", "/public/v2/programs", "COM002", 400},
		{"unknown Expect", "POST " + p + " HTTP/1.1\r\nHost: t\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}", p, "COM002", 417},
		{"unknown route", "GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n", "/nowhere", "NOT_FOUND", 404},
		{"unknown method", "PUT " + p + " HTTP/1.1\r\nHost: t\r\nX-API-KEY: " + key + "\r\nContent-Length: 0\r\n\r\n", p, "METHOD_NOT_ALLOWED", 405},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, raw, err := sendRaw(f.srv.Listener.Addr().String(), fuzzReq{method: "GET", raw: []byte(c.raw)})
			require.NoError(t, err)
			r := response{Status: status, Raw: raw}
			require.NoError(t, json.Unmarshal(raw, &r.Body), "%s", raw)
			requireError(t, r, c.path, c.status, c.code)
		})
	}
}
