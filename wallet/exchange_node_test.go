package wallet_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
)

// TestExchange_IndependentWallet runs a VC-API wallet built on Digital Bazaar's libraries (node,
// wallet/testdata/node/exchange.mjs) against the server: it claims one offer through the Learner Credential
// Wallet's deep link (Ed25519Signature2020, as that wallet signs) and another through the VC-API exchange
// (eddsa-rdfc-2022), verifies both credentials with @digitalbazaar/vc and their binding to its did:key, and tries
// replays and a wrong domain and challenge; then the assertion is cancelled and both copies read as revoked.
func TestExchange_IndependentWallet(t *testing.T) {
	f := newWalletFixture(t)
	out := runWallet(t, f, "exchange.mjs", "LCW_REQUEST="+jstr(t, f.offer(t, ""), "lcwRequest"),
		"EXCHANGE_URL="+jstr(t, f.offer(t, ""), "exchangeUrl"))
	var res struct {
		DID      string
		LCW      map[string]any
		VCAPI    map[string]any
		Refusals map[string]struct {
			Status int
			Type   string
		}
	}
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)

	crypto := "https://www.w3.org/TR/vc-data-model#CRYPTOGRAPHIC_SECURITY_ERROR"
	for k, w := range map[string]struct {
		status int
		typ    string
	}{
		"replayed_link": {410, "urn:badged:problem:offer-ended"}, "replayed_exchange": {410, "urn:badged:problem:offer-ended"},
		"wrong_domain": {400, crypto}, "made_up_challenge": {400, crypto},
	} {
		require.Equal(t, w.status, res.Refusals[k].Status, k)
		require.Equal(t, w.typ, res.Refusals[k].Type, k)
	}
	require.Equal(t, 2, f.copies(t), "the refusals wrote nothing")
	issuerID := baseURL + "/issuers/" + f.Org.ID.String()
	for name, c := range map[string]map[string]any{"deep link": res.LCW, "exchange": res.VCAPI} {
		require.Equal(t, true, c["verified"], name)
		require.Equal(t, res.DID, c["subject"], "%s: bound to the wallet's key", name)
		require.Equal(t, issuerID, c["issuer"], name)
		require.Equal(t, credential.Cryptosuite, c["cryptosuite"], name)
	}
	require.NotEqual(t, res.LCW["id"], res.VCAPI["id"], "each copy has its own id")

	requireRevokedAfterCancel(t, f, map[string]any{"deep link": res.LCW["status"], "exchange": res.VCAPI["status"]})
}
