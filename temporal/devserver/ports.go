package devserver

import (
	"fmt"
	"net"
	"strconv"
)

// resolveAddr turns "host:port" into host and a concrete port; port 0 asks
// the kernel for a free one. The listener is closed again before the server
// binds, so a race with another process is possible but short.
func resolveAddr(addr string) (string, int, error) {
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
	if port != 0 {
		return host, port, nil
	}
	port, err = freePort(host)
	return host, port, err
}

// freePort returns a TCP port on host that was free a moment ago.
func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("find free port on %s: %w", host, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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
