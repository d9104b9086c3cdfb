package metrics

import "github.com/prometheus/client_golang/prometheus"

// walletMetrics are the OpenID4VCI counters: copies claimed, what wallets report of them, secrets purged.
type walletMetrics struct {
	claims        *prometheus.CounterVec
	notifications *prometheus.CounterVec
	purged        *prometheus.CounterVec
}

func newWalletMetrics(reg *prometheus.Registry) *walletMetrics {
	w := &walletMetrics{
		claims: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "wallet",
			Name: "claims_total", Help: "Wallet copies issued over OpenID4VCI, by format (ldp_vc, jwt_vc_json)."}, []string{"format"}),
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "wallet",
			Name: "notifications_total", Help: "Notification events wallets reported on their copies (credential_accepted, credential_deleted, credential_failure)."},
			[]string{"event"}),
		purged: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "wallet",
			Name: "secrets_purged_total", Help: "Expired pre-authorized codes, access tokens, nonces and exchange challenges deleted by the purge job, by kind (code, token, nonce, challenge)."},
			[]string{"kind"}),
	}
	reg.MustRegister(w.claims, w.notifications, w.purged)
	return w
}

// WalletClaimed counts a wallet copy issued.
func (m *Metrics) WalletClaimed(format string) {
	if m == nil {
		return
	}
	m.wallet.claims.WithLabelValues(format).Inc()
}

// WalletNotified counts a notification event a wallet reported (recorded on its copy).
func (m *Metrics) WalletNotified(event string) {
	if m == nil {
		return
	}
	m.wallet.notifications.WithLabelValues(event).Inc()
}

// WalletSecretsPurged counts the secrets of kind ("code", "token", "nonce", "challenge") one purge deleted.
func (m *Metrics) WalletSecretsPurged(kind string, n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.wallet.purged.WithLabelValues(kind).Add(float64(n))
}
