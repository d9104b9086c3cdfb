package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// Request limits checked before routing. Go's own limit (http.Server.MaxHeaderBytes) answers in plain text and
// hangs up while the client may still be sending, so the server is given ServerMaxHeaderBytes, well above these,
// and guardRequest answers with the contract's body after reading the request whole.
const (
	// maxURIBytes bounds the request target (path and query): 414 beyond it.
	maxURIBytes = 16 << 10
	// maxHeaderBytes bounds the header fields, names and values: 431 beyond it.
	maxHeaderBytes = 64 << 10
	// ServerMaxHeaderBytes is what cmd/badged gives http.Server.MaxHeaderBytes. A request line and headers over it
	// get net/http's own 431, which GuardListener rewrites into the contract's body.
	ServerMaxHeaderBytes = 1 << 20
	// maxDrainBytes is how much of an oversized body is read and discarded before its 413 is written, so a client
	// still sending reads the answer instead of a connection reset. Beyond it the connection is closed.
	maxDrainBytes = 64 << 20
	// drainTime bounds the discarding of a slow client's body.
	drainTime = 20 * time.Second
)

// textHeaders are the request headers the API stores, compares or echoes; each must be UTF-8 without NUL.
// Other headers are never read, so they are left alone. X-API-KEY is not here: it never reaches the database as
// text (apikey.Parse takes the id, the rest is compared as a SHA-256), and the contract answers every invalid key
// with 401 SEC065, which a client may act on (rotate the key) where a 400 would mislead it.
var textHeaders = []string{"Idempotency-Key", "Content-Type", "Accept", "X-Request-Id"}

// guardRequest is the one check of everything a request carries outside its body: the request target's and the
// headers' size (414, 431), and NUL or invalid UTF-8 in the path, the query (names and values) and textHeaders
// (COM006 / COM002 naming the field). JSON bodies get the same text check in decodeBody (scanBody). It also keeps
// the request body as the server gave it, so a 413 can drain it (drainBody).
func (h *handler) guardRequest(mux *chi.Mux) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body := &countingBody{ReadCloser: r.Body}
			r = r.WithContext(context.WithValue(r.Context(), rawBodyKey{}, body))
			r.Body = body
			if err := checkRequest(mux, r); err != nil {
				h.writeError(w, r, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func checkRequest(mux *chi.Mux, r *http.Request) error {
	if n := len(r.RequestURI); n > maxURIBytes {
		field := "path"
		if len(r.URL.RawQuery) > len(r.URL.Path) {
			field = "query"
		}
		return &apiError{status: http.StatusRequestURITooLong, code: codeValidation,
			msg:    fmt.Sprintf("the request target is %d bytes; at most %d are accepted", n, maxURIBytes),
			fields: []fieldError{{Field: field, Message: fmt.Sprintf("must make a request target of at most %d bytes", maxURIBytes)}}}
	}
	if n, largest := headerBytes(r.Header); n > maxHeaderBytes {
		return &apiError{status: http.StatusRequestHeaderFieldsTooLarge, code: codeValidation,
			msg:    fmt.Sprintf("the header fields are %d bytes; at most %d are accepted", n, maxHeaderBytes),
			fields: []fieldError{{Field: largest, Message: "is the largest header field; headers must total at most 64 KiB"}}}
	}
	if p := validText(r.URL.Path); p != bodyOK {
		return fieldsError([]fieldError{p.field(pathField(mux, r))})
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return &apiError{status: statusOf(codeFormat), code: codeFormat, msg: "the query string is malformed",
			fields: []fieldError{{Field: "query", Message: "is malformed: " + queryErrorText(err), format: true}}}
	}
	var fields []fieldError
	for _, name := range slices.Sorted(maps.Keys(q)) {
		field := name
		if field == "" {
			field = "query" // "?=x": error.errors[].field must name something
		}
		if p := validText(name); p != bodyOK {
			fields = append(fields, p.field(field))
			continue
		}
		for _, v := range q[name] {
			if p := validText(v); p != bodyOK {
				fields = append(fields, p.field(field))
				break
			}
		}
	}
	for _, name := range textHeaders {
		for _, v := range r.Header.Values(name) {
			if p := validText(v); p != bodyOK {
				fields = append(fields, p.field(name))
				break
			}
		}
	}
	if len(fields) > 0 {
		return fieldsError(fields)
	}
	return nil
}

// headerBytes is the size of the header section as sent (name, ": ", value, CRLF per field) and the name of the
// largest field.
func headerBytes(hd http.Header) (int, string) {
	total, largest, largestName := 0, 0, ""
	for name, values := range hd {
		n := 0
		for _, v := range values {
			n += len(name) + len(v) + 4
		}
		total += n
		if n > largest {
			largest, largestName = n, name
		}
	}
	return total, largestName
}

// pathField names the path parameter holding bad text ("badgeId"), or "path" when no route matches or the bad
// text sits outside a parameter.
func pathField(mux *chi.Mux, r *http.Request) string {
	rctx := chi.NewRouteContext()
	if mux.Find(rctx, r.Method, r.URL.Path) == "" {
		return "path"
	}
	for i, k := range rctx.URLParams.Keys {
		// "*" is the rest of the path below a mounted version; the parameter inside it names the field.
		if k != "*" && i < len(rctx.URLParams.Values) && validText(rctx.URLParams.Values[i]) != bodyOK {
			return k
		}
	}
	return "path"
}

// queryErrorText keeps the parse error's reason, not its echo of the client's text.
func queryErrorText(err error) string {
	var ee url.EscapeError
	if errors.As(err, &ee) {
		return "a % escape is not two hex digits"
	}
	if strings.Contains(err.Error(), "semicolon") {
		return "separate parameters with &, not ;"
	}
	return "cannot be parsed"
}

// countingBody counts what the handler read of the request body.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

type rawBodyKey struct{}

// drainBody reads and discards what is left of r's body (up to maxDrainBytes, for at most drainTime) before an
// error is written, so the client, which may still be sending, gets to read the answer: closing a connection with
// unread data makes the kernel send a reset, and the client then sees "connection reset by peer" instead of the
// 413. A client that sent "Expect: 100-continue" and has not been asked for the body yet is not asked now: the
// server closes the connection after the answer, before any body is sent.
func drainBody(w http.ResponseWriter, r *http.Request) {
	body, ok := r.Context().Value(rawBodyKey{}).(*countingBody)
	if !ok {
		return
	}
	if body.n == 0 && strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		w.Header().Set("Connection", "close")
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(drainTime)) // not every writer supports deadlines; the server's ReadTimeout still holds
	n, _ := io.CopyN(io.Discard, body.ReadCloser, maxDrainBytes+1)
	_ = rc.SetReadDeadline(time.Time{})
	if n > maxDrainBytes {
		w.Header().Set("Connection", "close")
	}
}
