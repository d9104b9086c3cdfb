package deploy

import (
	"net"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"
)

// listenPorts are the container ports a service declares: published ports' targets and exposed ports.
func listenPorts(s types.ServiceConfig) []string {
	var ports []string
	for _, p := range s.Ports {
		ports = append(ports, strconv.FormatUint(uint64(p.Target), 10))
	}
	for _, e := range s.Expose {
		ports = append(ports, e)
	}
	return ports
}

// requireServiceHostPort fails unless hostPort is "<service>:<port>" with a port the service declares.
func requireServiceHostPort(t *testing.T, p *types.Project, from, what, hostPort, service string) {
	t.Helper()
	host, port, err := net.SplitHostPort(hostPort)
	require.NoError(t, err, "%s: %s %q", from, what, hostPort)
	require.Equal(t, service, host, "%s: %s must point at service %s", from, what, service)
	s, ok := p.Services[host]
	require.True(t, ok, "%s: %s names no service", from, what)
	require.True(t, slices.Contains(listenPorts(s), port), "%s: %s uses port %s, service %s declares %v",
		from, what, port, host, listenPorts(s))
}

// requireServiceURL is requireServiceHostPort for a URL with an explicit port.
func requireServiceURL(t *testing.T, p *types.Project, from, what, raw, service string) {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err, "%s: %s", from, what)
	require.NotEmpty(t, u.Port(), "%s: %s %q needs an explicit port", from, what, raw)
	requireServiceHostPort(t, p, from, what, u.Host, service)
}
