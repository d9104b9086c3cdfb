package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/api"
)

// The contract check: every test server of this package (startServer, and the tests that build their own) runs
// behind validateContract, which checks each request a test sends and each response it gets against the version's
// OpenAPI document (api/openapi.yaml). A field a handler adds without the document, a code an operation answers
// without listing it, or a document stricter than the server fails the test that met it.
//
// Requests are checked when the server accepted them (2xx): a rejected request is usually the test's point, and
// the rejection itself is checked as a response. Responses are checked always, errors included; an answer to a path
// no operation matches (404, 405, or 401 before routing) must be the error body.

// notContract are the routes outside the JSON API: media, credentials, verification pages, issuer documents, status
// lists, health and the wallet protocols (OpenID4VCI, VC-API exchanges). Their answers are not the contract's and are
// not checked.
var notContract = []string{"/media/", "/credentials/", "/verify/", "/issuers/", "/achievements/", "/status-lists/", "/healthz", "/readyz", "/.well-known/", "/oid4vci/", "/exchanges/", "/share/"}

// requestsNotChecked are the tests whose accepted requests are deliberately outside the document (hostile input
// the server tolerates); only their responses are checked. Keep it short and say why.
var requestsNotChecked = map[string]string{
	"TestHTTPFuzz": "generated requests the server tolerates though the document does not describe them (a JSON body without Content-Type)",
}

// contractCount counts what the checks saw in this test process (reported by TestMain).
var contractCount struct{ requests, responses, skipped atomic.Int64 }

type contractDoc struct {
	doc    *openapi3.T
	router routers.Router
}

var contractDocs = sync.OnceValues(func() (map[string]contractDoc, error) {
	openapi3filter.RegisterBodyDecoder("application/pdf", openapi3filter.FileBodyDecoder)
	out := map[string]contractDoc{}
	for _, v := range []int{2, 3} {
		raw, err := api.OpenAPIDocument(v)
		if err != nil {
			return nil, err
		}
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			return nil, err
		}
		if err := doc.Validate(context.Background()); err != nil {
			return nil, err
		}
		router, err := gorillamux.NewRouter(doc)
		if err != nil {
			return nil, err
		}
		out[fmt.Sprintf("/public/v%d/", v)] = contractDoc{doc: doc, router: router}
	}
	return out, nil
})

// validateContract wraps a test server's handler with the contract check; failures are reported when the test
// ends (after its servers closed, as the registration order makes this cleanup run last).
func validateContract(tb testing.TB, next http.Handler) http.Handler {
	tb.Helper()
	docs, err := contractDocs()
	require.NoError(tb, err)
	c := &contractCheck{docs: docs, checkRequests: true}
	if why, ok := requestsNotChecked[strings.Split(tb.Name(), "/")[0]]; ok && why != "" {
		c.checkRequests = false
	}
	tb.Cleanup(func() {
		c.pending.Wait()
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, f := range c.failures {
			tb.Errorf("OpenAPI contract: %s", f)
		}
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.serve(next, w, r)
	})
}

type contractCheck struct {
	docs          map[string]contractDoc
	checkRequests bool
	pending       sync.WaitGroup // checks still running
	mu            sync.Mutex
	failures      []string
}

func (c *contractCheck) fail(r *http.Request, status int, format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = append(c.failures, fmt.Sprintf("%s %s -> %d: %s", r.Method, r.URL.RequestURI(), status, fmt.Sprintf(format, args...)))
}

// checkSlots bounds the checks running at once. A check costs a few milliseconds of CPU (kin-openapi compiles
// the JSON Schema 2020-12 validator of every schema it applies), so it runs after the answer, off the request's
// path, where it does not add to the latency that timing-sensitive tests (rate limits, deadlines) measure.
var checkSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// maxCapture bounds what is kept of a request or response body; larger bodies are limit tests, not contract.
const maxCapture = 16 << 20

func (c *contractCheck) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	for _, p := range notContract {
		// HEAD is the GET's answer without its body (TestHEADAnswersAsGET compares them), and the preflight of
		// the public OpenAPI document is CORS (TestCORS): neither is an operation.
		if strings.HasPrefix(r.URL.Path, p) || r.URL.Path == "/" || r.Method == http.MethodHead || // "/": the service's page
			(r.Method == http.MethodOptions && strings.HasSuffix(r.URL.Path, "/openapi.json")) {
			contractCount.skipped.Add(1)
			next.ServeHTTP(w, r)
			return
		}
	}
	reqBody := &captureBody{ReadCloser: r.Body}
	r.Body = reqBody
	rec := &captureWriter{ResponseWriter: w}
	next.ServeHTTP(rec, r)
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	if status < 300 {
		// The handler may stop before the end of a body it accepted (a multipart part it needs): read the rest so
		// the whole request is checked.
		_, _ = io.Copy(io.Discard, r.Body)
	}
	// r and rec belong to the server once this returns: the check gets copies.
	req := r.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(reqBody.buf.Bytes()))
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") && status < 300 {
		// The document describes the JSON; a gzip body (issuances, README "Running at scale") is checked decompressed.
		zr, err := gzip.NewReader(bytes.NewReader(reqBody.buf.Bytes()))
		if err == nil {
			req.Body = io.NopCloser(zr)
			req.Header.Del("Content-Encoding")
		}
	}
	res := capturedResponse{status: status, header: rec.Header().Clone(), body: rec.buf.Bytes(), over: rec.over}
	bodyComplete := !reqBody.over
	c.pending.Add(1)
	go func() {
		defer c.pending.Done()
		checkSlots <- struct{}{}
		defer func() { <-checkSlots }()
		c.check(req, bodyComplete, res)
	}()
}

type capturedResponse struct {
	status int
	header http.Header
	body   []byte
	over   bool
}

func (c *contractCheck) check(r *http.Request, bodyComplete bool, res capturedResponse) {
	status := res.status
	var doc contractDoc
	for prefix, d := range c.docs {
		if strings.HasPrefix(r.URL.Path, prefix) {
			doc = d
		}
	}
	if doc.doc == nil {
		c.checkErrorBody(r, status, res.body, c.docs["/public/v3/"])
		return
	}
	route, params, err := doc.router.FindRoute(r)
	if err != nil {
		c.checkErrorBody(r, status, res.body, doc)
		return
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	// A dry run accepts a request of any shape and reports its problems in the answer (createIssuance's
	// description): its request is not held to the schema of the real request; its answer is checked.
	dryRun := r.Method == http.MethodPost && r.URL.Query().Get("dryRun") == "true"
	if c.checkRequests && status < 300 && bodyComplete && !dryRun {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			c.fail(r, status, "request does not match the document: %v", err)
		}
		contractCount.requests.Add(1)
	}
	if res.over {
		c.fail(r, status, "response larger than %d bytes: not checked", maxCapture)
		return
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: res.header,
		Body:    io.NopCloser(bytes.NewReader(res.body)),
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		c.fail(r, status, "response does not match the document: %v\nbody: %.2000s", err, res.body)
	}
	contractCount.responses.Add(1)
}

// checkErrorBody checks the answer to a request no operation matches: it must be an error of the contract.
func (c *contractCheck) checkErrorBody(r *http.Request, status int, raw []byte, doc contractDoc) {
	contractCount.responses.Add(1)
	if status < 400 {
		c.fail(r, status, "a success on a path the document does not have")
		return
	}
	var body any
	if err := json.Unmarshal(raw, &body); err != nil {
		c.fail(r, status, "error answer is not JSON: %.200s", raw)
		return
	}
	schema := doc.doc.Components.Schemas["Error"].Value
	if err := schema.VisitJSON(body, openapi3.EnableJSONSchema2020()); err != nil {
		c.fail(r, status, "error answer does not match the Error schema: %v", err)
	}
	if m, _ := body.(map[string]any); m != nil {
		if e, _ := m["error"].(map[string]any); e != nil && e["status"] != float64(status) {
			c.fail(r, status, "error.status %v is not the HTTP status", e["status"])
		}
	}
}

// captureBody keeps what the handler reads of a request body.
type captureBody struct {
	io.ReadCloser
	buf  bytes.Buffer
	over bool
}

func (b *captureBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.over && b.buf.Len()+n <= maxCapture {
		b.buf.Write(p[:n])
	} else {
		b.over = true
	}
	return n, err
}

// captureWriter keeps the status and body a handler writes, passing both on.
type captureWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
	over   bool
}

func (w *captureWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *captureWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !w.over && w.buf.Len()+len(p) <= maxCapture {
		w.buf.Write(p)
	} else {
		w.over = true
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (drainBody sets read deadlines through it).
func (w *captureWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *captureWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// TestOpenAPI_Served: each version's document is served without an API key, is the rendered one, and describes its
// own version.
func TestOpenAPI_Served(t *testing.T) {
	e := newEnv(t)
	for _, v := range []int{2, 3} {
		r := e.do(t, http.MethodGet, fmt.Sprintf("/public/v%d/openapi.json", v), "", "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
		want, err := api.OpenAPIDocument(v)
		require.NoError(t, err)
		require.Equal(t, want, r.Raw)
		require.Equal(t, "3.1.0", r.Body["openapi"])
		require.Equal(t, fmt.Sprintf("/public/v%d", v), jstr(t, r.Body, "servers.0.url"))
		sourced := "components.schemas.Recipient.properties.sourcedId"
		if v == 2 {
			require.NotContains(t, jget(t, r.Body, "components.schemas.Recipient.properties"), "sourcedId")
		} else {
			require.Equal(t, []any{"string", "null"}, jget(t, r.Body, sourced+".type"))
		}
	}
}

// TestContractCheck_CatchesDrift: the check fails a response with a field the document does not have, an error
// code the operation does not list, and an accepted request the document forbids.
func TestContractCheck_CatchesDrift(t *testing.T) {
	docs, err := contractDocs()
	require.NoError(t, err)
	org := `{"id":"6f1c1c3e-1111-4111-8111-111111111111","name":"Acme","roleCode":"ORG_VIEWER"`
	errBody := func(code string, status int) string {
		return fmt.Sprintf(`{"success":false,"error":{"timestamp":"2025-03-01T00:00:00Z","code":%q,"message":"m","status":%d,"path":"/p","errors":[]}}`, code, status)
	}
	for _, tc := range []struct {
		name, method, path, reqBody string
		status                      int
		body                        string
		fails                       bool
	}{
		{"matching answer", "GET", "/public/v3/organization", "", 200, `{"success":true,"message":null,"data":` + org + `}}`, false},
		{"field added by a handler", "GET", "/public/v3/organization", "", 200, `{"success":true,"message":null,"data":` + org + `,"plan":"gold"}}`, true},
		{"listed error code", "GET", "/public/v3/issuances/6f1c1c3e-1111-4111-8111-111111111111", "", 404, errBody("ISS001", 404), false},
		{"unlisted error code", "GET", "/public/v3/issuances/6f1c1c3e-1111-4111-8111-111111111111", "", 404, errBody("AST001", 404), true},
		{"v3-only field on v2", "POST", "/public/v2/programs", `{"name":"P","categoryCode":"EDUCATION","imageId":"6f1c1c3e-1111-4111-8111-111111111111","issuedAt":"x"}`, 200, "{}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &contractCheck{docs: docs, checkRequests: true}
			req, err := http.NewRequest(tc.method, "http://badged.test"+tc.path, strings.NewReader(tc.reqBody))
			require.NoError(t, err)
			req.Header.Set("X-API-KEY", "k")
			if tc.reqBody != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			c.check(req, true, capturedResponse{status: tc.status, body: []byte(tc.body),
				header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}})
			if tc.fails {
				require.NotEmpty(t, c.failures)
			} else {
				require.Empty(t, c.failures)
			}
		})
	}
}

// TestMain reports how many requests and responses the contract check validated.
func TestMain(m *testing.M) {
	code := m.Run()
	fmt.Fprintf(os.Stderr, "openapi contract: %d requests and %d responses validated, %d answers of non-API routes not checked\n",
		contractCount.requests.Load(), contractCount.responses.Load(), contractCount.skipped.Load())
	os.Exit(code)
}
