package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// GuardListener wraps the API's listener so that the answers net/http writes by itself, before any handler runs,
// carry the contract's error body like every other error: 431 for a request line and headers over
// http.Server.MaxHeaderBytes, 400 for a request it cannot parse (a NUL or other control byte in a header, a bad
// Host...), 417 for an Expect other than 100-continue, and 501/505 for an unknown transfer coding or protocol
// version, which are answered 400 here: no input may produce a 5xx. loc is the v2 time zone of the timestamp.
//
// net/http writes these answers straight to the connection in one Write, in a fixed form (text/plain, "Connection:
// close", no Date); a handler's response always has a Date and our headers, so the two cannot be confused. Only the
// first write after a request was read is looked at, where a response starts.
func GuardListener(ln net.Listener, loc *time.Location) net.Listener {
	if loc == nil {
		loc = defaultLocation()
	}
	return &guardListener{Listener: ln, loc: loc}
}

type guardListener struct {
	net.Listener
	loc *time.Location
}

func (l *guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &guardConn{Conn: c, loc: l.loc}, nil
}

// headKeep is how much of a request's first bytes a guardConn keeps, to name the path in an error body.
const headKeep = 2048

type guardConn struct {
	net.Conn
	loc *time.Location

	mu       sync.Mutex // net/http reads in a background goroutine while a handler writes
	readLast bool       // the last I/O was a read: the next write starts a response
	head     []byte     // the first bytes read since the last write: the request line
}

func (c *guardConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if !c.readLast {
			c.head, c.readLast = c.head[:0], true
		}
		if room := headKeep - len(c.head); room > 0 {
			c.head = append(c.head, p[:min(n, room)]...)
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *guardConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	starts := c.readLast
	c.readLast = false
	var path string
	status, text, canned := 0, "", false
	if starts {
		if status, text, canned = cannedAnswer(p); canned {
			path = requestPath(c.head)
		}
	}
	c.mu.Unlock()
	if !canned {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(contractAnswer(status, text, path, c.loc, time.Now())); err != nil {
		return 0, err
	}
	return len(p), nil
}

var cannedHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

// cannedAnswer recognises an answer net/http wrote itself and returns its status and reason text.
func cannedAnswer(p []byte) (int, string, bool) {
	if len(p) < 13 || !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(p[9:12]))
	if err != nil {
		return 0, "", false
	}
	if status == http.StatusExpectationFailed { // sent for an unknown Expect before any handler runs; ours never do
		return status, "unsupported Expect header; only 100-continue is understood", true
	}
	i := bytes.Index(p, cannedHeaders)
	if i < 0 || bytes.Contains(p[:i], []byte("\r\n")) {
		return 0, "", false
	}
	return status, string(p[i+len(cannedHeaders):]), true
}

// contractAnswer is the whole HTTP response carrying the contract's error body for a canned answer.
func contractAnswer(status int, text, path string, loc *time.Location, now time.Time) []byte {
	reason := strings.TrimSpace(strings.TrimPrefix(text, strconv.Itoa(status)+" "+http.StatusText(status)))
	reason = strings.TrimSpace(strings.TrimPrefix(reason, ":"))
	code, field, msg := codeFormat, "request", "the request could not be parsed"
	switch {
	case status == http.StatusRequestHeaderFieldsTooLarge:
		code, field = codeValidation, "header"
		msg = fmt.Sprintf("the request line and headers are larger than %d bytes", ServerMaxHeaderBytes)
	case status == http.StatusExpectationFailed:
		field, msg = "Expect", text
	case status == http.StatusNotImplemented || strings.Contains(reason, "transfer encoding"):
		status, field, msg = http.StatusBadRequest, "Transfer-Encoding", "unsupported transfer encoding; send chunked or a Content-Length"
	case status >= 500 || strings.Contains(reason, "protocol"):
		status, field, msg = http.StatusBadRequest, "protocol", "unsupported protocol version; use HTTP/1.1"
	case strings.Contains(reason, "Host"):
		field, msg = "Host", "the request could not be parsed: "+reason
	case strings.Contains(reason, "header"):
		field, msg = "header", "the request could not be parsed: "+reason
	case reason != "":
		msg = "the request could not be parsed: " + reason
	}
	if status < 400 || status > 499 {
		status = http.StatusBadRequest
	}
	body, _ := json.Marshal(errorBody{Error: errorDetail{
		Timestamp: pathVersion(path).formatTime(now, loc),
		Code:      code,
		Message:   msg,
		Status:    status,
		Path:      path,
		Errors:    []fieldError{{Field: field, Message: msg, format: code == codeFormat}},
	}})
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	fmt.Fprintf(&b, "Content-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n", len(body)+1)
	fmt.Fprintf(&b, "Date: %s\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n", now.UTC().Format(http.TimeFormat))
	b.Write(body)
	b.WriteByte('\n')
	return b.Bytes()
}

// requestPath reads the path of the request line at the start of head ("" when head does not start with one).
func requestPath(head []byte) string {
	line, _, _ := bytes.Cut(head, []byte("\r\n"))
	_, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok {
		return ""
	}
	target, _, _ := bytes.Cut(rest, []byte(" "))
	t, _, _ := strings.Cut(string(target), "?")
	if !strings.HasPrefix(t, "/") {
		if u, err := url.Parse(t); err == nil && u.Path != "" {
			return u.Path // absolute form: http://host/path
		}
		return ""
	}
	if p, err := url.PathUnescape(t); err == nil {
		return p
	}
	return t
}
