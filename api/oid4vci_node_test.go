package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
)

// walletModules is where `make wallet-deps` installs the wallet's npm packages (pinned in the Makefile).
func walletModules(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("BADGED_WALLET_MODULES")
	if dir == "" {
		abs, err := filepath.Abs("../.tools/wallet/node_modules")
		require.NoError(tb, err)
		dir = abs
	}
	_, err := os.Stat(filepath.Join(dir, "jose", "package.json"))
	require.NoError(tb, err, "the wallet's npm packages are missing: run make wallet-deps (make test does)")
	return dir
}

// TestWallet_IndependentWallet runs a wallet built on jose (node, api/testdata/wallet/wallet.mjs) against the
// server: it claims every configuration of an offer, verifies the VC-JWTs with the published JWKS and its binding,
// and tries the refusals; then the assertion is cancelled and each copy reads as revoked.
func TestWallet_IndependentWallet(t *testing.T) {
	modules := walletModules(t)
	f := newWalletFixture(t)
	uri := jstr(t, f.offer(t, ""), "credentialOfferUri")
	cmd := exec.Command("node", "testdata/wallet/wallet.mjs")
	cmd.Env = append(os.Environ(), "OFFER_URI="+uri, "BASE_PUBLIC="+baseURL, "BASE_REAL="+f.srv.URL, "WALLET_MODULES="+modules)
	cmd.Stderr = os.Stderr
	raw, err := cmd.Output()
	require.NoError(t, err, "node wallet: %s", raw)
	var out struct {
		DID      string
		Claimed  map[string]map[string]any
		Refusals map[string]struct {
			Status          int
			Error           string
			WWWAuthenticate *string
		}
	}
	require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)

	want := map[string]struct {
		status int
		code   string
	}{
		"other_key": {400, "invalid_proof"}, "other_aud": {400, "invalid_proof"}, "made_up_nonce": {400, "invalid_nonce"},
		"unknown_configuration": {400, "unsupported_credential_configuration"}, "bad_token": {401, "invalid_token"},
		"replayed_code": {400, "invalid_grant"}, "big_proof": {400, "invalid_credential_request"},
	}
	for k, w := range want {
		r := out.Refusals[k]
		require.Equal(t, w.status, r.Status, k)
		require.Equal(t, w.code, r.Error, k)
	}
	require.NotNil(t, out.Refusals["bad_token"].WWWAuthenticate)

	require.Len(t, out.Claimed, 3)
	require.Equal(t, 3, f.copies(t), "the refusals wrote nothing")
	for cfg, c := range out.Claimed {
		require.Equal(t, out.DID, c["subject"], "%s bound to the wallet's key", cfg)
		if c["format"] == "jwt_vc_json" {
			require.Equal(t, true, c["verified"], cfg)
			require.Equal(t, out.DID, c["sub"], cfg)
		}
	}
	require.Equal(t, "RS256", out.Claimed[cfgRS256]["alg"])
	require.Equal(t, "EdDSA", out.Claimed[cfgEdDSA]["alg"])
	ldp, err := json.Marshal(out.Claimed[cfgLDP]["credential"])
	require.NoError(t, err)
	st, ctrl := f.getJSON(t, baseURL+"/issuers/"+f.org.ID.String())
	require.Equal(t, http.StatusOK, st)
	res, err := credential.NewStaticResolver(ctrl)
	require.NoError(t, err)
	_, err = credential.Verify(context.Background(), ldp, res)
	require.NoError(t, err)

	r := f.do(t, http.MethodPost, "/public/v3/assertions/"+f.assertion.String()+"/cancel", f.keys["manager"], "")
	require.Equal(t, http.StatusOK, r.Status)
	for cfg, c := range out.Claimed {
		list := c["status"].(map[string]any)["statusListCredential"].(string)
		st, listRaw := f.getJSON(t, list)
		require.Equal(t, http.StatusOK, st)
		revoked, err := credential.CheckStatus(map[string]any{"credentialStatus": c["status"],
			"issuer": map[string]any{"id": baseURL + "/issuers/" + f.org.ID.String()}}, listRaw)
		require.NoError(t, err)
		require.True(t, revoked, "%s copy revoked with its assertion", cfg)
	}
}
