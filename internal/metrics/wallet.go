package metrics

import "github.com/prometheus/client_golang/prometheus"

func newWalletClaims(reg *prometheus.Registry) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "wallet",
		Name: "claims_total", Help: "Wallet copies issued over OpenID4VCI, by format (ldp_vc, jwt_vc_json)."}, []string{"format"})
	reg.MustRegister(c)
	return c
}

// WalletClaimed counts a wallet copy issued.
func (m *Metrics) WalletClaimed(format string) {
	if m == nil {
		return
	}
	m.walletClaims.WithLabelValues(format).Inc()
}
