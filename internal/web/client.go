package web

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddr names the client of a request for a per-client bound (the wallet's nonces). It is the address of the
// peer, unless the peer is on a loopback or private address and the request carries X-Forwarded-For: then the peer
// is the deployment's own proxy (the TLS terminator in front of PUBLIC_BASE_URL, the cluster's balancer) and the
// client is the address that proxy appended last, the one it saw connect, which a client cannot forge (it can only
// add entries before it). A client behind a chain of proxies is named by the last proxy before ours, and clients
// behind one NAT share a name: a bound per client must leave room for a classroom. An IPv6 client is named by its
// /64, which one host or home network usually holds whole (a single address would cost it nothing to change).
// "" when the peer's address cannot be read.
func ClientAddr(r *http.Request) string {
	a, ok := parseAddr(r.RemoteAddr)
	if !ok {
		return ""
	}
	if a.IsLoopback() || a.IsPrivate() {
		if fwd := r.Header.Values("X-Forwarded-For"); len(fwd) > 0 {
			entries := strings.Split(fwd[len(fwd)-1], ",")
			if f, ok := parseAddr(strings.TrimSpace(entries[len(entries)-1])); ok {
				a = f
			}
		}
	}
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

// parseAddr reads an address with or without a port (RemoteAddr has one; X-Forwarded-For entries usually not).
func parseAddr(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}
