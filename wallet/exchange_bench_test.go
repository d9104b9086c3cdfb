package wallet_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkExchangeClaim: a whole VC-API claim as the Learner Credential Wallet makes it over an exchange ({} →
// presentation request → signed DIDAuthentication presentation → the copy), one offer per claim, sequentially;
// the wallet's signing (canonicalization of its presentation) is inside the measured time, as it is on a phone.
// Reports p50 and p99, to read beside BenchmarkWalletClaim (the OpenID4VCI claim) of the same run.
func BenchmarkExchangeClaim(b *testing.B) {
	benchClaims(b, func(f *walletFixture, wl testWallet, offerURI string) {
		url := strings.Replace(offerURI, "/oid4vci/offers/", "/exchanges/", 1)
		req := f.vpr(b, url)
		vp := wl.didAuth(b, req["challenge"].(string), req["domain"].(string), nil)
		st, _, body := f.post(b, url, map[string]any{"verifiablePresentation": vp})
		require.Equal(b, http.StatusOK, st, "%v", body)
	})
}
