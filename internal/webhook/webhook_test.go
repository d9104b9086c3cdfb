package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/webhook"
)

// The Standard Webhooks reference test vector (standard-webhooks libraries' tests).
func TestSign_StandardWebhooksVector(t *testing.T) {
	sig, err := webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	require.NoError(t, err)
	require.Equal(t, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", sig)
}

func TestVerify(t *testing.T) {
	secret, err := webhook.NewSecret()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(secret, "whsec_"))
	other, err := webhook.NewSecret()
	require.NoError(t, err)
	require.NotEqual(t, secret, other)
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"evt_1","type":"issuance.completed"}`)
	headers := func(secret string, ts time.Time, body []byte) http.Header {
		sig, err := webhook.Sign(secret, "evt_1", ts, body)
		require.NoError(t, err)
		return http.Header{"Webhook-Id": {"evt_1"}, "Webhook-Timestamp": {strconv.FormatInt(ts.Unix(), 10)},
			"Webhook-Signature": {sig}}
	}
	id, err := webhook.Verify(secret, headers(secret, now, body), body, webhook.DefaultTolerance, now)
	require.NoError(t, err)
	require.Equal(t, "evt_1", id)

	_, err = webhook.Verify(secret, headers(other, now, body), body, webhook.DefaultTolerance, now)
	require.ErrorIs(t, err, webhook.ErrNoMatchingSigner, "another endpoint's secret")
	_, err = webhook.Verify(secret, headers(secret, now, body), []byte(`{"id":"evt_1","type":"issuance.failed"}`), webhook.DefaultTolerance, now)
	require.ErrorIs(t, err, webhook.ErrNoMatchingSigner, "a changed body")
	_, err = webhook.Verify(secret, headers(secret, now.Add(-6*time.Minute), body), body, webhook.DefaultTolerance, now)
	require.ErrorIs(t, err, webhook.ErrTimestamp, "too old: a replay")
	_, err = webhook.Verify(secret, headers(secret, now.Add(6*time.Minute), body), body, webhook.DefaultTolerance, now)
	require.ErrorIs(t, err, webhook.ErrTimestamp, "from the future")
	_, err = webhook.Verify(secret, http.Header{}, body, webhook.DefaultTolerance, now)
	require.ErrorIs(t, err, webhook.ErrMissingHeaders)

	// Several signatures (a rotated secret): any v1 match passes; other versions are ignored.
	h := headers(secret, now, body)
	h.Set("Webhook-Signature", "v1a,abc v1,AAAA "+h.Get("Webhook-Signature"))
	_, err = webhook.Verify(secret, h, body, webhook.DefaultTolerance, now)
	require.NoError(t, err)
	h.Set("Webhook-Id", "evt_2")
	_, err = webhook.Verify(secret, h, body, webhook.DefaultTolerance, now)
	require.ErrorIs(t, err, webhook.ErrNoMatchingSigner, "the id is signed too")
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	strict, dev := webhook.URLPolicy{}, webhook.URLPolicy{AllowHTTP: true, AllowPrivate: true}
	for _, tc := range []struct {
		url    string
		policy webhook.URLPolicy
		err    string // "" valid
	}{
		{"https://93.184.215.14/hooks", strict, ""},
		{"http://93.184.215.14/hooks", strict, "must use https"},
		{"http://127.0.0.1:9000/hooks", dev, ""},
		{"https://127.0.0.1/hooks", strict, "loopback"},
		{"https://10.0.0.8/hooks", strict, "private"},
		{"https://172.16.3.4/hooks", strict, "private"},
		{"https://192.168.1.1/hooks", strict, "private"},
		{"https://169.254.169.254/latest/meta-data", strict, "link-local"},
		{"https://100.64.0.1/", strict, "private"},
		{"https://[::1]/", strict, "loopback"},
		{"https://[fe80::1]/", strict, "link-local"},
		{"https://[fd00::1]/", strict, "private"},
		{"https://[::ffff:127.0.0.1]/", strict, "loopback"},
		{"https://0.0.0.0/", strict, "private"},
		{"https://localhost/", strict, "localhost"},
		{"https://api.localhost/", strict, "localhost"},
		{"ftp://a.example/", dev, "http(s)"},
		{"/relative", dev, "absolute"},
		{"https://u:p@a.example/", dev, "user info"},
		{"https://a.example/#frag", dev, "fragment"},
		{"https://" + strings.Repeat("a", 2050) + ".example/", dev, "at most"},
	} {
		err := tc.policy.CheckURL(ctx, tc.url)
		if tc.err == "" {
			require.NoError(t, err, tc.url)
		} else {
			require.ErrorContains(t, err, tc.err, tc.url)
		}
	}
}

func TestPublic(t *testing.T) {
	for ip, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true, "127.0.0.1": false, "10.1.1.1": false, "192.168.0.1": false,
		"169.254.1.1": false, "100.100.1.1": false, "224.0.0.1": false, "::": false, "fc00::1": false,
		"::ffff:10.0.0.1": false, "64:ff9b::a00:1": false, "255.255.255.255": false,
	} {
		require.Equal(t, want, webhook.Public(netip.MustParseAddr(ip)), ip)
	}
}

// The address is checked again when the delivery connects, after DNS: a name that resolves to loopback (as a
// rebinding attacker's would on the second lookup) is refused even though the URL passed its creation check.
func TestSender_BlocksPrivateAddressAtConnect(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits++ }))
	defer srv.Close()
	secret, err := webhook.NewSecret()
	require.NoError(t, err)
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]

	strict := webhook.NewSender(webhook.URLPolicy{AllowHTTP: true}, 5*time.Second)
	for _, u := range []string{srv.URL, "http://localhost" + port} {
		res := strict.Send(context.Background(), u, secret, "evt_x", []byte(`{}`))
		require.True(t, res.Blocked, "%s: %v", u, res.Err)
		require.True(t, res.Permanent(), u)
		require.ErrorIs(t, res.Err, webhook.ErrBlockedAddress)
	}
	require.Zero(t, hits)

	dev := webhook.NewSender(webhook.URLPolicy{AllowHTTP: true, AllowPrivate: true}, 5*time.Second)
	res := dev.Send(context.Background(), srv.URL, secret, "evt_x", []byte(`{}`))
	require.NoError(t, res.Err)
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, 1, hits)
}

// The URL is checked again before each attempt under the sender's policy: an http:// endpoint created while
// WEBHOOK_ALLOW_HTTP was on gets nothing in plain text once it is off, and the refusal is permanent.
func TestSender_RechecksURLPolicyAtDelivery(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits++ }))
	defer srv.Close()
	secret, err := webhook.NewSecret()
	require.NoError(t, err)
	httpsOnly := webhook.NewSender(webhook.URLPolicy{AllowPrivate: true}, 5*time.Second)
	for u, why := range map[string]string{
		srv.URL:                     "must use https",
		"ftp://example.com/x":       "must be an http(s) URL",
		"https://user:pw@a.test/x":  "must not carry user info",
		"https://a.test/x#fragment": "must not have a fragment",
	} {
		res := httpsOnly.Send(context.Background(), u, secret, "evt_x", []byte(`{}`))
		require.True(t, res.Refused, u)
		require.True(t, res.Permanent(), u)
		require.ErrorIs(t, res.Err, webhook.ErrURLRefused, u)
		require.ErrorContains(t, res.Err, why, u)
	}
	require.Zero(t, hits, "nothing was sent")
}

// A redirect is a failed attempt, never followed; a large answer is read only up to the cap.
func TestSender_NoRedirects(t *testing.T) {
	followed := false
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed = true }))
	defer target.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	secret, err := webhook.NewSecret()
	require.NoError(t, err)
	res := webhook.NewSender(webhook.URLPolicy{AllowHTTP: true, AllowPrivate: true}, 5*time.Second).
		Send(context.Background(), srv.URL, secret, "evt_x", []byte(`{}`))
	require.Equal(t, http.StatusTemporaryRedirect, res.StatusCode)
	require.Error(t, res.Err)
	require.False(t, followed)
}
