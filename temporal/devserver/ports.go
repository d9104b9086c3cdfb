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

// checkFree fails early when host:port is taken: the UI server would
// otherwise exit the whole process on a bind error.
func checkFree(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("address %s:%d unavailable: %w", host, port, err)
	}
	return l.Close()
}
