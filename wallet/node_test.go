package wallet_test

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

// walletModules is where `make wallet-deps` installs the test wallets' npm packages (pinned by
// wallet/testdata/node/package-lock.json). Every package the wallets load must be there.
func walletModules(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("BADGED_WALLET_MODULES")
	if dir == "" {
		abs, err := filepath.Abs("../.tools/wallet/node_modules")
		require.NoError(tb, err)
		dir = abs
	}
	for _, pkg := range []string{"jose", "@openid4vc/openid4vci", "@openid4vc/oauth2", "@digitalbazaar/vc"} {
		_, err := os.Stat(filepath.Join(dir, pkg, "package.json"))
		require.NoError(tb, err, "the wallet's npm package %s is missing: run make wallet-deps (make test does)", pkg)
	}
	return dir
}

// runWallet runs a test wallet (node, wallet/testdata/node/<script>) against the fixture's server with env added to
// what verify.mjs reads (the modules, the public base and the test server, the Open Badges contexts), and returns
// its standard output, the one JSON object it prints.
func runWallet(t *testing.T, f *walletFixture, script string, env ...string) []byte {
	t.Helper()
	modules := walletModules(t)
	ob := map[string]json.RawMessage{}
	for _, u := range []string{credential.ContextOB300, credential.ContextOB301, credential.ContextOB302, credential.ContextOB303} {
		b, err := credential.ContextDocument(u)
		require.NoError(t, err)
		ob[u] = b
	}
	ctxFile := filepath.Join(t.TempDir(), "contexts.json")
	raw, err := json.Marshal(ob)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ctxFile, raw, 0o600))

	cmd := exec.Command("node", filepath.Join("testdata", "node", script))
	cmd.Env = append(append(os.Environ(), "BASE_PUBLIC="+baseURL, "BASE_REAL="+f.Srv.URL, "CONTEXTS_FILE="+ctxFile,
		"WALLET_MODULES="+modules), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node wallet: %s", out)
	return out
}

// requireRevokedAfterCancel cancels the fixture's assertion and checks that each copy's status entry (by name)
// reads as revoked in its status list.
func requireRevokedAfterCancel(t *testing.T, f *walletFixture, statuses map[string]any) {
	t.Helper()
	r := f.Do(t, http.MethodPost, "/public/v3/assertions/"+f.assertion.String()+"/cancel", f.Keys["manager"], "")
	require.Equal(t, http.StatusOK, r.Status)
	require.NotEmpty(t, statuses)
	for name, status := range statuses {
		st, list := f.getJSON(t, status.(map[string]any)["statusListCredential"].(string))
		require.Equal(t, http.StatusOK, st)
		revoked, err := credential.CheckStatus(map[string]any{"credentialStatus": status,
			"issuer": map[string]any{"id": baseURL + "/issuers/" + f.Org.ID.String()}}, list)
		require.NoError(t, err)
		require.True(t, revoked, "%s copy revoked with its assertion", name)
	}
}

// TestWallet_IndependentWallet runs an OpenID4VCI wallet built on @openid4vc/openid4vci (node,
// wallet/testdata/node/wallet.mjs) against the server, from the offer link of an offer that asks for a tx_code: the
// library reads the metadata as OpenID4VCI 1.0, a token request without the tx_code is invalid_request and the same
// code then takes the token with it, a wrong tx_code is invalid_grant, the wallet claims every configuration (the
// first with a proof signed alg Ed25519, RFC 9864), verifies the ldp_vc with
// @digitalbazaar/vc and the VC-JWTs with jose and the published JWKS, checks the binding to its key, and tries the
// refusals (each the spec's error, none written); then the assertion is cancelled and each copy reads as revoked.
func TestWallet_IndependentWallet(t *testing.T) {
	f := newWalletFixture(t)
	data := f.offer(t, `{"txCode":true}`)
	raw := runWallet(t, f, "wallet.mjs", "OFFER="+jstr(t, data, "offer"), "TX_CODE="+jstr(t, data, "txCode"))
	type tokenRefusal struct {
		Status             int
		Error, Description string
	}
	var out struct {
		DID         string
		Version     string
		ProofAlgs   map[string][]string
		TxCodeAsked bool
		TxCode      struct {
			Missing           *tokenRefusal
			RightAfterMissing bool
			Wrong             *tokenRefusal
		}
		Claimed  map[string]map[string]any
		Refusals map[string]struct {
			Status          int
			Error           string
			WWWAuthenticate *string
			AuthError       string
		}
	}
	require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
	require.Equal(t, "V1", out.Version, "the library reads the issuer metadata as OpenID4VCI 1.0")
	require.Len(t, out.ProofAlgs, 3)
	for cfg, algs := range out.ProofAlgs {
		require.Equal(t, []string{"Ed25519", "EdDSA", "ES256"}, algs, "%s advertises the proof algs", cfg)
	}
	require.True(t, out.TxCodeAsked)
	// OpenID4VCI 1.0 §6.3: a missing tx_code is invalid_request and leaves the code usable; the right one then
	// takes the token with the same code; a wrong one is invalid_grant.
	require.NotNil(t, out.TxCode.Missing)
	require.Equal(t, tokenRefusal{http.StatusBadRequest, "invalid_request", out.TxCode.Missing.Description}, *out.TxCode.Missing)
	require.Contains(t, out.TxCode.Missing.Description, "tx_code")
	require.True(t, out.TxCode.RightAfterMissing)
	require.NotNil(t, out.TxCode.Wrong)
	require.Equal(t, http.StatusBadRequest, out.TxCode.Wrong.Status)
	require.Equal(t, "invalid_grant", out.TxCode.Wrong.Error)
	require.Contains(t, out.TxCode.Wrong.Description, "4 tries left")

	want := map[string]struct {
		status int
		code   string
	}{
		"other_key": {400, "invalid_proof"}, "other_aud": {400, "invalid_proof"}, "made_up_nonce": {400, "invalid_nonce"},
		"used_nonce": {400, "invalid_nonce"}, "unknown_configuration": {400, "unsupported_credential_configuration"},
		"bad_token": {401, "invalid_token"}, "replayed_code": {400, "invalid_grant"}, "big_proof": {400, "invalid_credential_request"},
	}
	require.Len(t, out.Refusals, len(want))
	for k, w := range want {
		r := out.Refusals[k]
		require.Equal(t, w.status, r.Status, k)
		require.Equal(t, w.code, r.Error, k)
	}
	require.NotNil(t, out.Refusals["bad_token"].WWWAuthenticate)
	require.Equal(t, "invalid_token", out.Refusals["bad_token"].AuthError, "the library reads the WWW-Authenticate challenge")

	require.Len(t, out.Claimed, 3)
	require.Equal(t, 3, f.copies(t), "the refusals wrote nothing")
	statuses := map[string]any{}
	for cfg, c := range out.Claimed {
		require.Equal(t, true, c["verified"], cfg)
		require.Equal(t, out.DID, c["subject"], "%s bound to the wallet's key", cfg)
		require.EqualValues(t, http.StatusNoContent, c["notification"], cfg)
		if c["format"] == "jwt_vc_json" {
			require.Equal(t, out.DID, c["sub"], cfg)
			require.NotNil(t, c["exp"], "%s: the assertion expires, so the VC-JWT has exp", cfg)
		}
		statuses[cfg] = c["status"]
	}
	// The library built the first claim's proof with alg Ed25519 (RFC 9864), the others EdDSA: each got its copy.
	require.Equal(t, "Ed25519", out.Claimed[cfgLDP]["proofAlg"])
	require.Equal(t, "EdDSA", out.Claimed[cfgRS256]["proofAlg"])
	require.Equal(t, "RS256", out.Claimed[cfgRS256]["alg"])
	require.Equal(t, "EdDSA", out.Claimed[cfgEdDSA]["alg"])
	require.Equal(t, credential.Cryptosuite, out.Claimed[cfgLDP]["cryptosuite"])
	// The ldp_vc verified by badged's own verifier too, against the published issuer document.
	ldp, err := json.Marshal(out.Claimed[cfgLDP]["credential"])
	require.NoError(t, err)
	st, ctrl := f.getJSON(t, baseURL+"/issuers/"+f.Org.ID.String())
	require.Equal(t, http.StatusOK, st)
	res, err := credential.NewStaticResolver(ctrl)
	require.NoError(t, err)
	_, err = credential.Verify(context.Background(), ldp, res)
	require.NoError(t, err)

	requireRevokedAfterCancel(t, f, statuses)
}
