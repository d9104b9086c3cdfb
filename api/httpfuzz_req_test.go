package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

var fuzzMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "PROPFIND"}

// next draws one request.
func (g *reqGen) next() fuzzReq {
	g.n++
	g.p, g.hit, g.leaf = pick(g, []float64{0, 0.05, 0.1, 0.3}), -1, 0
	if g.chance(0.4) { // one hostile leaf in an otherwise valid request: it gets furthest
		g.p, g.hit = 0, g.r.IntN(14)
	}
	g.v = pick(g, []string{"v2", "v3"})
	if g.chance(0.03) {
		return g.rawReq()
	}
	ep, prefix := pick(g, versionedEndpoints), "/public/"+g.v
	if g.chance(0.12) {
		ep, prefix = pick(g, publicEndpoints), ""
	}
	if g.chance(0.02) {
		prefix = pick(g, []string{"/public/v1", "/public/v4", "/public", "/PUBLIC/v3", "/public/v3/"})
	}
	path := ep.path
	for strings.Contains(path, "{") {
		i, j := strings.Index(path, "{"), strings.Index(path, "}")
		path = path[:i] + g.pathID(path[i:j+1]) + path[j+1:]
	}
	req := fuzzReq{route: ep.method + " " + ep.path, method: ep.method, path: prefix + path, header: http.Header{}}
	if g.chance(0.06) {
		req.method = pick(g, fuzzMethods)
	}
	req.query = g.query(ep)
	g.headers(&req, ep)
	if ep.body != nil {
		body, ct := ep.body(g)
		req.body = body
		if ct != "" {
			req.header.Set("Content-Type", ct)
		}
	} else if g.chance(0.03) {
		req.body = []byte(pick(g, []string{`{"name":"x"}`, "\x00\xff", "a=b"}))
	}
	req.write = req.method != "GET" && req.method != "HEAD" && req.method != "OPTIONS" && req.method != "TRACE"
	return req
}

func (g *reqGen) query(ep fuzzEndpoint) string {
	var parts []string
	switch {
	case g.chance(0.004):
		return "email=" + strings.Repeat("a", 100_000) // over the 16 KiB request target: 414
	case len(ep.query) > 0 && g.chance(0.8):
		for range 1 + g.r.IntN(4) {
			name := pick(g, ep.query)
			parts = append(parts, name+"="+g.queryValue(name))
		}
	case g.chance(0.05):
		parts = append(parts, url.QueryEscape(pick(g, hostileText))+"="+url.QueryEscape(pick(g, hostileText)))
	}
	if g.chance(g.p / 3) {
		parts = append(parts, pick(g, []string{"a=%zz", "a;b=1", "email=%00", "%ff=1", "sourcedId=%ED%A0%80", "size=%", "=&&="}))
	}
	return strings.Join(parts, "&")
}

// headerText are hostile header values net/http's client agrees to send (no control characters).
var headerText = []string{"\xff\xfe", "\xc3\x28", "badged_\x80", "", " ", strings.Repeat("k", 301), "é", "x"}

func (g *reqGen) headers(req *fuzzReq, ep fuzzEndpoint) {
	switch n := g.r.IntN(100); {
	case n < 70:
		req.header.Set("X-API-KEY", g.keys["manager"])
	case n < 80:
		req.header.Set("X-API-KEY", g.keys["viewer"])
	case n < 85:
		req.header.Set("X-API-KEY", g.keys["owner"])
	case n < 90:
		req.header.Set("X-API-KEY", g.keys["otherManager"])
	case n < 94:
	default:
		req.header.Set("X-API-KEY", pick(g, headerText))
	}
	if strings.HasSuffix(ep.path, "/issuances") {
		switch n := g.r.IntN(100); {
		case n < 75:
			req.header.Set("Idempotency-Key", fmt.Sprintf("k-%d", g.n))
		case n < 85:
			req.header.Set("Idempotency-Key", "k-reused") // the same key with other bodies: ISS057
		case n < 90:
		default:
			req.header["Idempotency-Key"] = []string{pick(g, headerText)}
		}
	}
	if g.chance(0.03) {
		req.header.Set("Accept", pick(g, []string{"text/html", "application/json", "\xff"}))
	}
	if g.chance(0.02) {
		req.header.Set("X-Request-Id", pick(g, headerText))
	}
	if g.chance(0.004) {
		req.header.Set("X-Pad", strings.Repeat("p", 100_000)) // over the 64 KiB of headers: 431
	}
}

// rawReq is a request net/http's client will not send; it goes out as bytes on its own connection.
func (g *reqGen) rawReq() fuzzReq {
	key, p := g.keys["manager"], "/public/"+g.v+"/programs"
	badge := pick(g, g.ids["{badge}"])
	cases := []struct{ method, text string }{
		{"GET", "GET " + p + " HTTP/1.1\r\nHost: t\r\nX-API-KEY: a\x00b\r\n\r\n"},
		{"GET", "GET " + p + " HTTP/1.1\r\nHost: t\r\nX-API-KEY: " + key + "\r\nX-Bad\x01Name: 1\r\n\r\n"},
		{"POST", "POST " + p + " HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\nContent-Type: application/json\r\n\r\n{}"},
		{"POST", "POST " + p + " HTTP/1.1\r\nHost: t\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}"},
		{"GET", "GET " + p + " HTTP/2.0\r\nHost: t\r\n\r\n"},
		{"GET", "GET " + p + " HTTP/9.9\r\nHost: t\r\n\r\n"},
		{"GET", "GET " + p + " HTTP/1.1\r\nX-API-KEY: " + key + "\r\n\r\n"},
		{"POST", "POST " + p + " HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n"},
		{"POST", "POST " + p + " HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"},
		{"GET", "GET " + p + "/\x00 HTTP/1.1\r\nHost: t\r\n\r\n"},
		{"GET", "GET " + p + "/\xff HTTP/1.1\r\nHost: t\r\nX-API-KEY: " + key + "\r\n\r\n"},
		{"GET", "GET " + p + "?sort=\x00 HTTP/1.1\r\nHost: t\r\nX-API-KEY: " + key + "\r\n\r\n"},
		{"GET", "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n"},
		{"GET", "GET " + p + " HTTP/1.1\r\nHost: t\r\nX-API-KEY: " + key + "\r\nX-Request-Id: \x00\r\n\r\n"},
		{"GET", "GET " + p + " HTTP/1.1\r\nHost: t\r\nX-Pad: " + strings.Repeat("a", 2<<20) + "\r\n\r\n"},
		{"POST", "POST /public/" + g.v + "/badges/" + badge + "/issuances HTTP/1.1\r\nHost: t\r\nX-API-KEY: " + key +
			"\r\nIdempotency-Key: a\x00b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"},
		{"POST", "POST " + p + " HTTP/1.1\r\nHost: t\r\nX-API-KEY: " + key + "\r\nContent-Type: application/json\r\n" +
			"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"},
	}
	c := pick(g, cases)
	return fuzzReq{route: "raw", method: c.method, raw: []byte(c.text)}
}
