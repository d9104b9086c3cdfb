package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// maxResponseBytes is how much of a receiver's answer is read (and dropped): enough to reuse the connection, never
// an unbounded read of whatever the receiver sends.
const maxResponseBytes = 64 << 10

// Sender posts signed deliveries.
type Sender struct {
	client *http.Client
	policy URLPolicy
	now    func() time.Time
}

// NewSender returns a sender whose requests time out after timeout, follow no redirects, use no proxy (a proxy
// would connect on our behalf, past the address check) and connect only to addresses policy allows.
func NewSender(policy URLPolicy, timeout time.Duration) *Sender {
	return newSender(policy, timeout, nil)
}

// newSender is NewSender with the resolver of its connections (nil: the system's).
func newSender(policy URLPolicy, timeout time.Duration, resolver *net.Resolver) *Sender {
	dialer := &net.Dialer{Timeout: timeout, Control: policy.control, Resolver: resolver}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Sender{policy: policy, now: time.Now, client: &http.Client{
		Timeout:   timeout,
		Transport: transport,
		// A redirect is answered as the failure it is: the receiver's URL is what the organization registered.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Policy is the sender's URL policy.
func (s *Sender) Policy() URLPolicy { return s.policy }

// Attempt is the outcome of one POST.
type Attempt struct {
	StatusCode int // 0: no HTTP answer
	Latency    time.Duration
	// Err is nil only for a 2xx answer. Its text (Error) is what the integrator may see: a connection's error
	// leaves out the deployment's network details (deliveryError); logged with log/slog, it is the whole error.
	Err     error
	Blocked bool // the address was refused by the policy (ErrBlockedAddress)
	Refused bool // the URL was refused by the policy before any connection (ErrURLRefused)
}

// Permanent reports whether the attempt failed on the URL policy: trying again cannot succeed, the policy is a
// decision, not an accident of the network.
func (a Attempt) Permanent() bool { return a.Blocked || a.Refused }

// Send posts body to url, signed with secret under event id, and reports what happened. Only a 2xx answer counts
// as delivered. The URL is checked against the sender's policy first (URLPolicy.CheckDelivery), and the address
// when it connects.
func (s *Sender) Send(ctx context.Context, url, secret, id string, body []byte) Attempt {
	if err := s.policy.CheckDelivery(url); err != nil {
		return Attempt{Err: err, Refused: true}
	}
	start := s.now()
	sig, err := Sign(secret, id, start, body)
	if err != nil {
		return Attempt{Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Attempt{Err: fmt.Errorf("build request: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "badged-webhooks/1")
	req.Header.Set(HeaderID, id)
	req.Header.Set(HeaderTimestamp, fmt.Sprint(start.Unix()))
	req.Header.Set(HeaderSignature, sig)
	resp, err := s.client.Do(req)
	if err != nil {
		return Attempt{Latency: time.Since(start), Err: newDeliveryError(err, url), Blocked: errors.Is(err, ErrBlockedAddress)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
	_ = resp.Body.Close()
	a := Attempt{StatusCode: resp.StatusCode, Latency: time.Since(start)}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		a.Err = fmt.Errorf("receiver answered %s", resp.Status)
	}
	return a
}
