package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// URLPolicy is what endpoint URLs may point at (config: WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE).
type URLPolicy struct {
	AllowHTTP    bool // plain http:// besides https://
	AllowPrivate bool // loopback, private, link-local and other non-public addresses
}

// ErrBlockedAddress is a delivery refused because its host resolved to an address the policy forbids.
var ErrBlockedAddress = errors.New("webhook: address not allowed")

// ErrURLRefused is a delivery refused because the endpoint's URL itself no longer passes the policy (an http://
// endpoint after WEBHOOK_ALLOW_HTTP was turned off).
var ErrURLRefused = errors.New("webhook: URL not allowed")

// maxURLLength bounds endpoint URLs.
const maxURLLength = 2048

// CheckURL validates an endpoint URL at creation: an absolute https (or, if allowed, http) URL without user
// info, whose host resolves only to allowed addresses. Deliveries check the address again when they connect,
// since DNS may answer differently later (rebinding).
func (p URLPolicy) CheckURL(ctx context.Context, raw string) error {
	u, err := p.checkForm(raw)
	if err != nil || p.AllowPrivate {
		return err
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if !Public(ip) {
			return fmt.Errorf("must not point at a private, loopback or link-local address (%s)", ip)
		}
		return nil
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return errors.New("must not point at localhost")
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("host %s does not resolve", host)
	}
	for _, ip := range ips {
		if !Public(ip) {
			// The address is left out: a name that resolves to one inside the deployment's network (split-horizon
			// DNS) is not the integrator's to map.
			return fmt.Errorf("host %s resolves to a private, loopback or link-local address", host)
		}
	}
	return nil
}

// CheckDelivery checks an endpoint's URL again before an attempt, under the policy in force now (the endpoint may
// have been created under a looser one): everything CheckURL checks but the host's addresses, which the
// connection checks itself on the address it is about to dial (URLPolicy.control), so one look-up decides. The
// error wraps ErrURLRefused.
func (p URLPolicy) CheckDelivery(raw string) error {
	if _, err := p.checkForm(raw); err != nil {
		return fmt.Errorf("%w: %w", ErrURLRefused, err)
	}
	return nil
}

// checkForm checks what the URL's text decides: length, absolute, scheme, no user info, no fragment.
func (p URLPolicy) checkForm(raw string) (*url.URL, error) {
	if len(raw) > maxURLLength {
		return nil, fmt.Errorf("must be at most %d characters", maxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, errors.New("must be an absolute URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && p.AllowHTTP:
	case u.Scheme == "http":
		return nil, errors.New("must use https")
	default:
		return nil, errors.New("must be an http(s) URL")
	}
	if u.User != nil {
		return nil, errors.New("must not carry user info")
	}
	if u.Fragment != "" {
		return nil, errors.New("must not have a fragment")
	}
	return u, nil
}

// nonPublic are ranges outside the public internet that netip's predicates do not cover.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("::ffff:0:0/96"),   // IPv4-mapped (checked unmapped instead)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 of any IPv4, private ones included
	netip.MustParsePrefix("2002::/16"),       // 6to4, may embed a private IPv4
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/32"),       // Teredo
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
}

// Public reports whether ip is a public unicast address a delivery may connect to.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// control runs after DNS resolution, on the address about to be dialled: the check of the delivery itself, which
// a host that resolved to a public address at creation and to 127.0.0.1 now (DNS rebinding) cannot pass.
func (p URLPolicy) control(_, address string, _ syscall.RawConn) error {
	if p.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, address)
	}
	if !Public(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, ap.Addr().Unmap())
	}
	return nil
}
