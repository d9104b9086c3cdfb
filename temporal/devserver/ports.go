package devserver

import (
	"fmt"
	"net"
	"strconv"

	"github.com/badged/badged/internal/freeport"
)

// splitAddr turns "host:port" into host ("" is 127.0.0.1) and port (0: the caller picks a free one).
func splitAddr(addr string) (string, int, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("parse address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return "", 0, fmt.Errorf("parse port of %q: %w", addr, err)
	}
	return host, port, nil
}

// resolveAddr is splitAddr with port 0 replaced by a free port (internal/freeport).
func resolveAddr(addr string) (string, int, error) {
	host, port, err := splitAddr(addr)
	if err != nil || port != 0 {
		return host, port, err
	}
	free, err := freeport.Pick(host, 1)
	if err != nil {
		return "", 0, err
	}
	return host, free[0], nil
}

// ListenError reports an address one of the server's parts could not listen on: Service is "frontend" (the
// address clients dial), "ui", or "history", "matching" or "worker" (free ports picked at start, so taken only by a
// race with another process). Err is the listener's error, which names the address
// ("listen tcp 127.0.0.1:7233: bind: address already in use").
type ListenError struct {
	Service string
	Addr    string
	Err     error
}

func (e *ListenError) Error() string { return e.Service + ": " + e.Err.Error() }
func (e *ListenError) Unwrap() error { return e.Err }

// checkFree fails early when host:port is taken: the server's own listeners do not return their error (the
// frontend's is logged as fatal and then served as nil, see fatalLog) and the UI server exits the whole process on
// a bind error.
func checkFree(service, host string, port int) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return &ListenError{Service: service, Addr: addr, Err: err}
	}
	return l.Close()
}
