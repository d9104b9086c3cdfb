package api_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The request generator of TestHTTPFuzz: every route of both versions, mostly well-formed requests with a few
// hostile values in them, so that requests get past the first check and reach the handlers and the database.

// fuzzReq is one generated request. raw, when set, is sent as is on its own connection (what net/http's client
// refuses to send: NUL in a header, a bad request line, unknown transfer codings...).
type fuzzReq struct {
	route  string // the route pattern, for the statistics
	method string
	path   string // escaped, under the server root
	query  string // escaped
	header http.Header
	body   []byte
	raw    []byte
	write  bool // a method that may change rows: a rejected one must leave them as they were
}

// fuzzEndpoint is one route of a version; body builds a request body for it.
type fuzzEndpoint struct {
	method, path string
	body         func(g *reqGen) ([]byte, string) // body and Content-Type
	query        []string                         // the query parameters it reads
}

var versionedEndpoints = []fuzzEndpoint{
	{method: "GET", path: "/organization"},
	{method: "POST", path: "/media-files/images", body: (*reqGen).uploadBody},
	{method: "POST", path: "/programs", body: (*reqGen).programBody},
	{method: "GET", path: "/programs", query: []string{"page", "size", "sort", "categoryCode"}},
	{method: "GET", path: "/programs/{program}"},
	{method: "PATCH", path: "/programs/{program}", body: (*reqGen).programBody},
	{method: "DELETE", path: "/programs/{spareProgram}"},
	{method: "POST", path: "/badges", body: (*reqGen).badgeBody},
	{method: "GET", path: "/badges", query: []string{"page", "size", "sort", "categoryCode", "programId"}},
	{method: "GET", path: "/badges/{badge}"},
	{method: "PATCH", path: "/badges/{badge}", body: (*reqGen).badgeBody},
	{method: "DELETE", path: "/badges/{spareBadge}"},
	{method: "POST", path: "/badges/{badge}/issuances", body: (*reqGen).issuanceBody},
	{method: "GET", path: "/issuances/{issuance}"},
	{method: "GET", path: "/assertions", query: []string{"badgeId", "programId", "issuanceId", "stateCode", "email",
		"phoneNumber", "sourcedId", "startAt", "endAt", "page", "size", "sort"}},
	{method: "GET", path: "/assertions/{assertion}"},
	{method: "POST", path: "/assertions/{assertion}/cancel"},
	{method: "GET", path: "/assertions/{assertion}/pdf"},
	{method: "GET", path: "/no-such-route"},
}

var publicEndpoints = []fuzzEndpoint{
	{method: "GET", path: "/healthz"}, {method: "GET", path: "/readyz"}, {method: "GET", path: "/media/{image}/{variant}"},
	{method: "GET", path: "/issuers/{org}"}, {method: "GET", path: "/credentials/{assertion}"},
	{method: "GET", path: "/credentials/{assertion}/image"}, {method: "GET", path: "/verify/{assertion}"},
	{method: "GET", path: "/status-lists/{assertion}"}, {method: "GET", path: "/"}, {method: "POST", path: "/public/v9/programs"},
}

// reqGen draws requests from a seeded source. ids holds the fixture's ids by placeholder ("{badge}" -> uuid);
// keys the API keys by role.
type reqGen struct {
	r    *rand.Rand
	ids  map[string][]string
	keys map[string]string
	v    string  // the version of the request being built
	p    float64 // the chance that a leaf value is hostile
	hit  int     // when >= 0, only the hit-th leaf of the request is hostile (p is then 0)
	leaf int     // leaves drawn so far in the request
	n    int     // requests generated, for unique idempotency keys
	png  []byte  // a small valid image to upload
}

func (g *reqGen) chance(p float64) bool { return g.r.Float64() < p }

// hostile decides whether the next leaf value is a hostile one.
func (g *reqGen) hostile() bool {
	g.leaf++
	return g.leaf-1 == g.hit || g.chance(g.p)
}

// textHostile are the hostile strings that stay strings, so that they pass the type checks and reach the rules
// and the database.
var textHostile = []string{`"a\u0000b"`, "\"a\xffb\"", "\"\xc3\x28\"", `"\ud800"`, `"x\udfff"`, `"\u0000"`,
	`"` + strings.Repeat("x", 2000) + `"`, `"'; DROP TABLE programs; --"`, `"\u202e\u0001\u001f"`}

func pick[T any](g *reqGen, xs []T) T { return xs[g.r.IntN(len(xs))] }

// hostileJSON are JSON values (as sent, raw bytes included) that no field should take into a 5xx.
var hostileJSON = []string{
	`"a\u0000b"`, "\"a\xffb\"", "\"\xc3\x28\"", `"\ud800"`, `"x\udfff"`, `"\ud83d\ude00 ok"`, `""`, `"   "`, `null`, `0`,
	`-1`, `1e400`, `9223372036854775808`, `1.5`, `true`, `[]`, `{}`, `[null]`, `{"a":"\u0000"}`, `"2025-03-01T09:00:00"`,
	`"9999-12-31T23:59:59Z"`, `"0001-01-01T00:00:00+14:00"`, `"00000000-0000-0000-0000-000000000000"`,
	`"'; DROP TABLE programs; --"`, `"<script>alert(1)</script>"`, `"\u202e\u0001\u001f"`, `"%00"`,
	`"` + strings.Repeat("x", 2000) + `"`, `"` + strings.Repeat("한", 300) + `"`, `"` + strings.Repeat("a", 70000) + `"`,
}

// hostileText are strings for paths, queries and headers (escaped where they go).
var hostileText = []string{"\x00", "a\x00", "\xff", "\xc3\x28", "\xed\xa0\x80", "", " ", "nope", "123", "é", "../..",
	"00000000-0000-0000-0000-000000000000", strings.Repeat("z", 5000), "null", "%", "a;b", "\r\n"}

// str is a valid string most of the time, else a hostile value.
func (g *reqGen) str(valid string) string {
	if g.hostile() {
		if g.chance(0.6) {
			return pick(g, textHostile)
		}
		return pick(g, hostileJSON)
	}
	return quoteJSON(valid)
}

// id is one of the fixture's ids of kind most of the time, else another organization's, a missing or a hostile one.
func (g *reqGen) id(kind string) string {
	if g.hostile() {
		switch g.r.IntN(3) {
		case 0:
			return quoteJSON(pick(g, g.ids["{other}"]))
		case 1:
			return quoteJSON(pick(g, g.ids["{missing}"]))
		}
		return pick(g, hostileJSON)
	}
	return quoteJSON(pick(g, g.ids[kind]))
}

func (g *reqGen) enum(values ...string) string { return g.str(pick(g, values)) }

func (g *reqGen) datetime() string {
	t := fmt.Sprintf("2025-%02d-%02dT09:00:00", 1+g.r.IntN(2), 1+g.r.IntN(28))
	if g.v == "v3" || g.chance(0.3) {
		t += pick(g, []string{"Z", "+09:00"})
	}
	return g.str(t)
}

// obj writes a JSON object of the fields; it may also drop one, repeat one, or add an unknown one.
func (g *reqGen) obj(fields ...[2]string) string {
	if g.chance(g.p) && len(fields) > 0 {
		i := g.r.IntN(len(fields))
		switch g.r.IntN(3) {
		case 0:
			fields = slices.Delete(slices.Clone(fields), i, i+1)
		case 1:
			fields = append(slices.Clone(fields), [2]string{fields[i][0], pick(g, hostileJSON)})
		default:
			fields = append(slices.Clone(fields), [2]string{pick(g, []string{"bogus", "publishStatusCode", "na\\u0000me", "\xff"}), g.str("x")})
		}
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + f[0] + `":` + f[1])
	}
	b.WriteByte('}')
	return b.String()
}

func (g *reqGen) arr(n int, item func() string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item()
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func (g *reqGen) ids2(kind string) string {
	return g.arr(g.r.IntN(3), func() string { return g.id(kind) })
}

func (g *reqGen) programBody() ([]byte, string) {
	return g.wrap(g.obj(
		[2]string{"name", g.str(fmt.Sprintf("Program %d", g.n))}, [2]string{"description", g.str("A program")},
		[2]string{"url", g.str("https://example.com/p")}, [2]string{"categoryCode", g.enum("EDUCATION")},
		[2]string{"startsAt", g.datetime()}, [2]string{"endsAt", g.datetime()},
		[2]string{"isVisibleAtOrganizationPage", pick(g, []string{"true", "false"})},
		[2]string{"imageId", g.id("{image}")}, [2]string{"badgeIds", g.ids2("{badge}")},
	))
}

func (g *reqGen) badgeBody() ([]byte, string) {
	skill := func() string {
		if g.chance(0.5) {
			return g.obj([2]string{"sourceType", g.enum("CUSTOM")}, [2]string{"skillName", g.str("Go")})
		}
		return g.obj([2]string{"sourceType", g.enum("SERVICE_SKILL")}, [2]string{"serviceSkillId", g.str("skill-1")},
			[2]string{"language", g.enum("en", "ko")})
	}
	criterion := func() string {
		return g.obj([2]string{"category", g.enum("COMPLETION", "OTHER", "AWARD_SELECTION")}, [2]string{"value", g.str("Finish")})
	}
	return g.wrap(g.obj(
		[2]string{"name", g.str(fmt.Sprintf("Badge %d", g.n))}, [2]string{"description", g.str("Awarded")},
		[2]string{"criteria", g.arr(1+g.r.IntN(2), criterion)}, [2]string{"categoryCode", g.enum("COMPLETION", "AWARD")},
		[2]string{"expirationPolicy", g.obj([2]string{"relativeExpirationMonths", pick(g, []string{"1", "12", "0", "-5", `"3"`, "null"})})},
		[2]string{"imageId", g.id("{image}")}, [2]string{"signatureImageId", g.id("{image}")},
		[2]string{"skills", g.arr(1+g.r.IntN(2), skill)}, [2]string{"programIds", g.ids2("{program}")},
	))
}

func (g *reqGen) issuanceBody() ([]byte, string) {
	recipient := func() string {
		f := [][2]string{{"name", g.str("Kim")}, {"email", g.str(fmt.Sprintf("r%d@example.com", g.r.IntN(50)))},
			{"receiveType", g.enum("EMAIL", "KAKAOTALK")}}
		if g.v == "v3" || g.chance(0.2) {
			f = append(f, [2]string{"sourcedId", g.str(fmt.Sprintf("s-%d", g.r.IntN(50)))})
		}
		if g.chance(0.2) {
			f = append(f, [2]string{"phoneNumber", g.str("010-1234-5678")})
		}
		return g.obj(f...)
	}
	f := [][2]string{{"recipients", g.arr(1+g.r.IntN(3), recipient)}, {"programId", g.id("{program}")}}
	if g.v == "v3" && g.chance(0.5) {
		f = append(f, [2]string{"issuedAt", g.str("2025-02-01T00:00:00Z")})
	}
	return g.wrap(g.obj(f...))
}

// wrap sometimes replaces a body with something that is not the JSON object the route wants.
func (g *reqGen) wrap(body string) ([]byte, string) {
	ct := "application/json"
	if g.chance(g.p / 2) {
		ct = pick(g, []string{"", "text/plain", "application/json; charset=\xff", "multipart/form-data"})
	}
	if !g.chance(g.p / 2) {
		return []byte(body), ct
	}
	switch g.r.IntN(6) {
	case 0:
		return []byte(body[:g.r.IntN(len(body))]), ct // cut short
	case 1:
		return []byte(pick(g, []string{"", "null", "[]", `"x"`, "42", "{} {}", "\xff\xfe", "{\"a\":1}\x00"})), ct
	case 2:
		return []byte("[" + body + "]"), ct
	case 3:
		return []byte(strings.Repeat(" ", 1<<20) + body), ct // padded over the 1 MiB limit
	case 4:
		b := []byte(body)
		for range 1 + g.r.IntN(4) { // flip bytes
			b[g.r.IntN(len(b))] = byte(g.r.IntN(256))
		}
		return b, ct
	}
	return []byte(strings.Repeat(`{"a":`, 2000) + "1" + strings.Repeat("}", 2000)), ct // deep nesting
}

func (g *reqGen) uploadBody() ([]byte, string) {
	data := pick(g, [][]byte{g.png, []byte("not an image"), []byte("<svg xmlns=\"http://www.w3.org/2000/svg\"><text>a\x00b</text></svg>"),
		[]byte(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="file:///etc/passwd"/></svg>`),
		g.png[:len(g.png)/2], {}})
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, _ := w.CreateFormFile(pick(g, []string{"image", "image", "file", "image\xff"}), pick(g, []string{"a.png", "a\x00.png", "\xff.svg"}))
	_, _ = part.Write(data)
	_ = w.Close()
	if g.chance(g.p) {
		return g.wrap(`{"image":"x"}`)
	}
	return buf.Bytes(), w.FormDataContentType()
}

// queryValue is a value for a query parameter: valid for its name most of the time.
func (g *reqGen) queryValue(name string) string {
	if g.chance(g.p) {
		return url.QueryEscape(pick(g, hostileText))
	}
	valid := map[string][]string{
		"page": {"1", "2", "0", "x"}, "size": {"20", "100", "101"}, "sort": {"createdAt,desc", "id,asc", "name,asc", "bogus"},
		"categoryCode": {"EDUCATION", "COMPLETION"}, "stateCode": {"PROCESSING", "RECEIVED", "NOPE"},
		"email": {"r1@example.com", " R1@Example.com "}, "phoneNumber": {"010-1234-5678"}, "sourcedId": {"s-1"},
		"startAt": {"2025-01-01T00:00:00Z", "2025-01-01T00:00:00"}, "endAt": {"2026-01-01T00:00:00+09:00"},
	}
	if vs, ok := valid[name]; ok {
		return url.QueryEscape(pick(g, vs))
	}
	return url.QueryEscape(pick(g, g.ids["{"+strings.TrimSuffix(name, "Id")+"}"]))
}

// pathID fills a path placeholder: the fixture's id most of the time.
func (g *reqGen) pathID(kind string) string {
	if kind == "{variant}" {
		return pick(g, []string{"original", "medium", "small", "huge", "%00"})
	}
	if g.chance(g.p) {
		switch g.r.IntN(3) {
		case 0:
			return pick(g, g.ids["{missing}"])
		case 1:
			return pick(g, g.ids["{other}"])
		}
		return url.PathEscape(pick(g, hostileText))
	}
	return pick(g, g.ids[kind])
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
