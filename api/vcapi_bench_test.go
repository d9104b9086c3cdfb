package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkExchangeClaim: a whole VC-API claim as the Learner Credential Wallet makes it over an exchange ({} →
// presentation request → signed DIDAuthentication presentation → the copy), one offer per claim, sequentially;
// the wallet's signing (canonicalization of its presentation) is inside the measured time, as it is on a phone.
// Reports p50 and p99, to read beside BenchmarkWalletClaim (the OpenID4VCI claim) of the same run.
func BenchmarkExchangeClaim(b *testing.B) {
	f := newWalletFixture(b)
	wl := newTestWallet(b)
	urls := make([]string, b.N)
	for i := range urls {
		urls[i] = strings.Replace(f.insertOffer(b), "/oid4vci/offers/", "/exchanges/", 1)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		req := f.vpr(b, urls[i])
		vp := wl.didAuth(b, req["challenge"].(string), req["domain"].(string), nil)
		st, _, body := f.post(b, urls[i], map[string]any{"verifiablePresentation": vp})
		require.Equal(b, http.StatusOK, st, "%v", body)
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
}
