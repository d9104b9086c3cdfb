package web

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestClientAddr: the peer names the client, unless it is a proxy on a loopback or private address that says whom
// it saw (the last X-Forwarded-For entry); a public peer's X-Forwarded-For is the client's own words and ignored;
// an IPv6 client is its /64.
func TestClientAddr(t *testing.T) {
	for _, c := range []struct {
		name, remote string
		forwarded    []string
		want         string
	}{
		{"public IPv4 peer", "203.0.113.7:51234", nil, "203.0.113.7"},
		{"public peer's forwarded header is ignored", "203.0.113.7:51234", []string{"198.51.100.1"}, "203.0.113.7"},
		{"IPv6 peer by its /64", "[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:443", nil, "2001:db8:1:2::/64"},
		{"IPv4-mapped IPv6 peer", "[::ffff:203.0.113.7]:443", nil, "203.0.113.7"},
		{"loopback proxy: the address it appended", "127.0.0.1:40000", []string{"198.51.100.1"}, "198.51.100.1"},
		{"private proxy, a forged entry before its own", "10.0.0.5:40000", []string{"192.0.2.66, 198.51.100.1"}, "198.51.100.1"},
		{"the last header of several", "10.0.0.5:40000", []string{"192.0.2.66", "198.51.100.2"}, "198.51.100.2"},
		{"forwarded IPv6 client", "[::1]:40000", []string{"2001:db8:9::1"}, "2001:db8:9::/64"},
		{"loopback without a proxy header", "127.0.0.1:40000", nil, "127.0.0.1"},
		{"unreadable forwarded entry: the peer", "127.0.0.1:40000", []string{"unknown"}, "127.0.0.1"},
		{"unreadable peer", "somewhere", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := http.NewRequest(http.MethodPost, "http://badged.test/oid4vci/nonce", nil)
			require.NoError(t, err)
			r.RemoteAddr = c.remote
			for _, f := range c.forwarded {
				r.Header.Add("X-Forwarded-For", f)
			}
			require.Equal(t, c.want, ClientAddr(r))
		})
	}
}
