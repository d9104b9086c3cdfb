package webhook

import (
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
)

// deliveryError is the error of a failed POST, with two faces. Error is what the integrator sees (the attempt's
// error, stored and shown by the webhook routes): the cause, in the words of the Go error, without the
// deployment's own network details, the address of its DNS resolver ("lookup hooks.example.com on
// 10.96.0.10:53: no such host") and the local address of a connection ("read tcp 10.1.2.3:41234->…"), nor the
// private address a refused host resolved to. LogValue is the whole error, for the operator's log (a log/slog
// attribute resolves to it), and Unwrap gives the original to errors.Is and errors.As.
type deliveryError struct {
	err   error
	shown string
}

// newDeliveryError wraps the error of a POST to rawURL.
func newDeliveryError(err error, rawURL string) *deliveryError {
	literal := false // the URL names its host by address: the integrator gave it, so a refusal may show it
	if u, perr := url.Parse(rawURL); perr == nil {
		_, aerr := netip.ParseAddr(u.Hostname())
		literal = aerr == nil
	}
	return &deliveryError{err: err, shown: shownError(err, literal)}
}

func (e *deliveryError) Error() string { return e.shown }

func (e *deliveryError) Unwrap() error { return e.err }

// LogValue is the full error: a log line of the attempt (slog.Any("err", attempt.Err)) carries everything.
func (e *deliveryError) LogValue() slog.Value { return slog.StringValue(e.err.Error()) }

// shownError writes err as Error does, leaving out what belongs to the deployment's network. It knows the error
// types an http.Client's Do returns for a connection (url.Error around net.OpError around net.DNSError); anything
// else (TLS, HTTP, timeouts of the client, a syscall error under an OpError) carries nothing of ours and is written
// as it is.
func shownError(err error, literal bool) string {
	switch e := err.(type) {
	case *url.Error:
		return e.Op + " " + strconv.Quote(e.URL) + ": " + shownError(e.Err, literal)
	case *net.OpError:
		if errors.Is(e.Err, ErrBlockedAddress) && !literal {
			// The address a name resolved to is left out: an internal name resolving inside the deployment
			// (split-horizon DNS) is not the integrator's to map. A URL that names an address gave it itself.
			return e.Op + " " + e.Net + ": " + ErrBlockedAddress.Error() + " (the host resolves to a private, loopback or link-local address)"
		}
		s := e.Op
		if e.Net != "" {
			s += " " + e.Net
		}
		if e.Addr != nil { // the receiver's address; Source, ours, is left out
			s += " " + e.Addr.String()
		}
		return s + ": " + shownError(e.Err, literal)
	case *net.DNSError:
		return "lookup " + e.Name + ": " + dnsReason(e)
	}
	return err.Error()
}

// dnsReason is why a look-up failed, without the resolver's address (DNSError.Server) or the text of a failed
// exchange with it, which names it again ("dial udp 10.96.0.10:53: …").
func dnsReason(e *net.DNSError) string {
	switch {
	case e.IsNotFound:
		return "no such host"
	case e.IsTimeout:
		return "the DNS look-up timed out"
	case e.IsTemporary:
		return "temporary DNS failure"
	}
	return "the DNS look-up failed"
}
