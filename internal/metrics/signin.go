package metrics

import "github.com/prometheus/client_golang/prometheus"

// signinMetrics are the mail-link sign-in's (internal/signin), by audience (earner, console).
type signinMetrics struct {
	requests *prometheus.CounterVec // outcome: queued, ineligible, address_limit, client_limit, queue_full
	mails    *prometheus.CounterVec // outcome: sent, failed
	redeems  *prometheus.CounterVec // outcome: signed_in, invalid
}

func newSigninMetrics(reg *prometheus.Registry) signinMetrics {
	m := signinMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "signin",
			Name: "requests_total", Help: "Sign-in link requests, by audience and outcome (queued, ineligible, address_limit, client_limit, queue_full); every outcome answers the same."},
			[]string{"audience", "outcome"}),
		mails: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "signin",
			Name: "mails_total", Help: "Sign-in and invitation mails handed to the mail path, by audience and outcome (sent, failed)."},
			[]string{"audience", "outcome"}),
		redeems: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "signin",
			Name: "links_total", Help: "Sign-in links followed, by audience and outcome (signed_in, invalid: unknown, used or expired)."},
			[]string{"audience", "outcome"}),
	}
	reg.MustRegister(m.requests, m.mails, m.redeems)
	return m
}

// SigninRequest counts a sign-in link request of audience by outcome.
func (m *Metrics) SigninRequest(audience, outcome string) {
	if m == nil {
		return
	}
	m.signin.requests.WithLabelValues(audience, outcome).Inc()
}

// SigninMail counts a sign-in mail of audience by outcome (sent, failed).
func (m *Metrics) SigninMail(audience, outcome string) {
	if m == nil {
		return
	}
	m.signin.mails.WithLabelValues(audience, outcome).Inc()
}

// SigninLink counts a sign-in link followed, by outcome (signed_in, invalid).
func (m *Metrics) SigninLink(audience, outcome string) {
	if m == nil {
		return
	}
	m.signin.redeems.WithLabelValues(audience, outcome).Inc()
}
