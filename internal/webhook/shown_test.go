package webhook

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// nxdomainServer is a DNS server on UDP that answers every query "no such name" (RCODE 3), as a deployment's
// resolver answers for a receiver's host that does not exist. It returns its address.
func nxdomainServer(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			// The header: the query's id, then QR, its opcode and RD, RA, RCODE 3 (NXDOMAIN); one question (the
			// query's own, echoed), no answers.
			resp := append([]byte{}, buf[:n]...)
			resp[2] = 0x80 | (buf[2] & 0x79)
			resp[3] = 0x80 | 3
			binary.BigEndian.PutUint16(resp[6:], 0)  // ANCOUNT
			binary.BigEndian.PutUint16(resp[8:], 0)  // NSCOUNT
			binary.BigEndian.PutUint16(resp[10:], 0) // ARCOUNT (drops the query's EDNS record)
			if q := questionEnd(resp); q > 0 {
				resp = resp[:q]
			}
			_, _ = pc.WriteTo(resp, from)
		}
	}()
	return pc.LocalAddr().String()
}

// questionEnd is the offset after the first question of a DNS message, or 0.
func questionEnd(m []byte) int {
	i := 12
	for i < len(m) && m[i] != 0 {
		i += int(m[i]) + 1
	}
	if i+5 > len(m) {
		return 0
	}
	return i + 5 // the root label, QTYPE, QCLASS
}

// An attempt whose host does not resolve: the integrator sees "lookup HOST: no such host" (the attempt's error,
// stored and shown by the API), never the deployment's resolver address, which the operator's log line keeps.
func TestSender_DNSFailureHidesTheResolver(t *testing.T) {
	dns := nxdomainServer(t)
	var asked atomic.Int32
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		asked.Add(1) // address is the resolver of /etc/resolv.conf, which the error names as DNSError.Server
		var d net.Dialer
		return d.DialContext(ctx, "udp", dns)
	}}
	s := newSender(URLPolicy{}, 5*time.Second, resolver)
	secret, err := NewSecret()
	require.NoError(t, err)
	res := s.Send(context.Background(), "https://hooks.receiver.example/badged", secret, "evt_x", []byte(`{}`))
	require.Error(t, res.Err)
	require.False(t, res.Permanent())
	require.Positive(t, asked.Load(), "the look-up went to the test resolver")

	var de *net.DNSError
	require.ErrorAs(t, res.Err, &de, "the original error stays reachable")
	require.True(t, de.IsNotFound)
	require.NotEmpty(t, de.Server)
	shown := res.Err.Error()
	require.Equal(t, `Post "https://hooks.receiver.example/badged": dial tcp: lookup hooks.receiver.example: no such host`, shown)
	require.NotContains(t, shown, de.Server)

	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("webhook attempt failed", "err", res.Err)
	var line map[string]any
	require.NoError(t, json.Unmarshal(logged.Bytes(), &line))
	require.Contains(t, line["err"], "on "+de.Server+": no such host", "the operator's log has it all")
}

// Each connection error the client can return is shown without the deployment's addresses: the resolver's (in a
// DNS error, and in the text of a failed exchange with it), the local side of a connection, and the private address
// a refused host resolved to. What is the receiver's (its URL, its address, the TLS or HTTP failure) stays.
func TestShownError_LeavesOutTheDeploymentsNetwork(t *testing.T) {
	resolver := &net.UDPAddr{IP: net.IPv4(10, 96, 0, 10), Port: 53}
	local := &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 41234}
	remote := &net.TCPAddr{IP: net.IPv4(93, 184, 216, 34), Port: 443}
	post := func(err error) error { return &url.Error{Op: "Post", URL: "https://hooks.example.com/x", Err: err} }
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"not found", post(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "hooks.example.com",
			Server: resolver.String(), IsNotFound: true}}),
			`Post "https://hooks.example.com/x": dial tcp: lookup hooks.example.com: no such host`},
		{"resolver unreachable", post(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Name: "hooks.example.com",
			Err: "dial udp " + resolver.String() + ": connect: network is unreachable", Server: resolver.String(), IsTemporary: true}}),
			`Post "https://hooks.example.com/x": dial tcp: lookup hooks.example.com: temporary DNS failure`},
		{"resolver timeout", post(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Name: "hooks.example.com",
			Err: "i/o timeout", Server: resolver.String(), IsTimeout: true}}),
			`Post "https://hooks.example.com/x": dial tcp: lookup hooks.example.com: the DNS look-up timed out`},
		{"reset", post(&net.OpError{Op: "read", Net: "tcp", Source: local, Addr: remote, Err: errors.New("read: connection reset by peer")}),
			`Post "https://hooks.example.com/x": read tcp 93.184.216.34:443: read: connection reset by peer`},
		{"refused address", post(&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 443},
			Err: errors.Join(ErrBlockedAddress, errors.New("10.0.0.5"))}),
			`Post "https://hooks.example.com/x": dial tcp: webhook: address not allowed (the host resolves to a private, loopback or link-local address)`},
		{"tls", post(errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority")),
			`Post "https://hooks.example.com/x": tls: failed to verify certificate: x509: certificate signed by unknown authority`},
	} {
		e := newDeliveryError(tc.err, "https://hooks.example.com/x")
		require.Equal(t, tc.want, e.Error(), tc.name)
		for _, ours := range []string{resolver.IP.String(), local.IP.String(), "10.0.0.5"} {
			require.NotContains(t, e.Error(), ours, tc.name)
		}
		require.Equal(t, tc.err.Error(), e.LogValue().String(), tc.name)
		require.ErrorIs(t, e, tc.err, tc.name)
	}
}

// A refused private address, seen through real connection attempts: a name's address is not shown (the operator's
// log has it), an address the URL names itself is.
func TestSender_BlockedAddressShownOnlyWhenTheURLNamesIt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	secret, err := NewSecret()
	require.NoError(t, err)
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	sender := NewSender(URLPolicy{AllowHTTP: true}, 5*time.Second)

	byName := "http://localhost:" + u.Port() + "/hook"
	res := sender.Send(context.Background(), byName, secret, "evt_x", []byte(`{}`))
	require.True(t, res.Blocked)
	require.ErrorIs(t, res.Err, ErrBlockedAddress)
	require.Equal(t, `Post "`+byName+`": dial tcp: webhook: address not allowed (the host resolves to a private, loopback or link-local address)`,
		res.Err.Error())
	require.Regexp(t, `address not allowed: (127\.0\.0\.1|::1)`, e2s(res.Err), "logged in full")

	res = sender.Send(context.Background(), srv.URL, secret, "evt_x", []byte(`{}`))
	require.True(t, res.Blocked)
	require.Equal(t, `Post "`+srv.URL+`": dial tcp `+u.Host+`: webhook: address not allowed: 127.0.0.1`, res.Err.Error())
}

// e2s is what a log line of err shows.
func e2s(err error) string {
	var lv slog.LogValuer
	if errors.As(err, &lv) {
		return lv.LogValue().String()
	}
	return err.Error()
}
