package wallet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/activities"
)

// onServer sends a protocol request to one of the API servers (its URL) and decodes the JSON answer.
func onServer(tb testing.TB, server, method, path, contentType, body string) (int, http.Header, map[string]any) {
	tb.Helper()
	req, err := http.NewRequest(method, server+strings.TrimPrefix(path, baseURL), strings.NewReader(body))
	require.NoError(tb, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(tb, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(tb, err)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, res.Header, out
}

// codeOn fetches the offer URI on server and returns the fresh pre-authorized code.
func codeOn(tb testing.TB, server, uri string) string {
	tb.Helper()
	st, _, body := onServer(tb, server, http.MethodGet, uri, "", "")
	require.Equal(tb, http.StatusOK, st, "%v", body)
	return preAuthCode(tb, body)
}

// tokenOn redeems code with tx ("" sends no tx_code) at server's token endpoint.
func tokenOn(tb testing.TB, server, code, tx string) (int, map[string]any) {
	tb.Helper()
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:pre-authorized_code"}, "pre-authorized_code": {code}}
	if tx != "" {
		form.Set("tx_code", tx)
	}
	st, _, body := onServer(tb, server, http.MethodPost, "/oid4vci/token", "application/x-www-form-urlencoded", form.Encode())
	return st, body
}

// wrongGuesses returns n six-digit codes, none of them tx.
func wrongGuesses(tx string, n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		if g := fmt.Sprintf("%06d", i); g != tx {
			out = append(out, g)
		}
	}
	return out
}

// TestWallet_TxCodeBruteForce guesses an offer's tx_code as an attacker holding its URI would, on two API processes
// of one database, a fresh code for every guess: the wrong guesses are counted per offer across its codes and
// processes, each refusal says how many tries are left, and the 5th suspends the offer. From then on nothing gets a
// token, the right tx_code included, the offer URI mints no code on either process, and the brute force is stopped
// a million guesses short; the integrator makes a new offer, which works.
func TestWallet_TxCodeBruteForce(t *testing.T) {
	f := newWalletFixture(t)
	servers := []string{f.Srv.URL, f.Server(t).URL}
	data := f.offer(t, `{"txCode":true}`)
	uri, tx := jstr(t, data, "credentialOfferUri"), jstr(t, data, "txCode")
	early := codeOn(t, servers[1], uri) // fetched before the guessing: the honest holder's, say

	guesses := wrongGuesses(tx, 5)
	for i, g := range guesses {
		server := servers[i%2]
		st, body := tokenOn(t, server, codeOn(t, server, uri), g)
		require.Equal(t, http.StatusBadRequest, st, "%v", body)
		require.Equal(t, "invalid_grant", body["error"])
		desc := body["error_description"].(string)
		if i < 4 {
			require.Contains(t, desc, fmt.Sprintf("%d tr", 4-i), "guess %d says how many tries are left", i+1)
		} else {
			require.Contains(t, desc, "suspended", "the 5th wrong guess suspends the offer")
			require.Contains(t, desc, "new offer")
		}
	}
	var failures int
	var suspended *time.Time
	require.NoError(t, f.DB.Pool.QueryRow(context.Background(),
		"SELECT tx_code_failures, suspended_at FROM credential_offers WHERE id = $1", jstr(t, data, "id")).Scan(&failures, &suspended))
	require.Equal(t, 5, failures)
	require.NotNil(t, suspended)

	// The right tx_code, with a code minted before the suspension: refused, saying why.
	st, body := tokenOn(t, servers[0], early, tx)
	require.Equal(t, http.StatusBadRequest, st, "%v", body)
	require.Equal(t, "invalid_grant", body["error"])
	require.Contains(t, body["error_description"], "suspended after 5 wrong tx_codes")
	// The offer URI mints nothing on either process; the landing page says the offer ended.
	for _, server := range servers {
		st, _, body := onServer(t, server, http.MethodGet, uri, "", "")
		require.Equal(t, http.StatusGone, st, "%v", body)
		require.Contains(t, body["error_description"], "suspended")
	}
	st, _, page := f.getPage(t, uri+"/open", "en")
	require.Equal(t, http.StatusGone, st)
	require.Contains(t, page, "suspended")
	var tokens int
	require.NoError(t, f.DB.Pool.QueryRow(context.Background(), "SELECT count(*) FROM wallet_access_tokens").Scan(&tokens))
	require.Zero(t, tokens, "the brute force got no access token")

	// The owner makes a new offer: its own tx_code, its own count.
	fresh := f.offer(t, `{"txCode":true}`)
	st, body = tokenOn(t, servers[1], codeOn(t, servers[0], jstr(t, fresh, "credentialOfferUri")), jstr(t, fresh, "txCode"))
	require.Equal(t, http.StatusOK, st, "%v", body)
}

// TestWallet_TxCodeGuessesAtOnce: ten wrong guesses sent at once, on two processes, each with its own code, are
// judged one at a time under the offer's row lock: exactly five are counted (the 5th suspending the offer), the
// other five are refused as guesses at a suspended offer, never counted.
func TestWallet_TxCodeGuessesAtOnce(t *testing.T) {
	f := newWalletFixture(t)
	servers := []string{f.Srv.URL, f.Server(t).URL}
	data := f.offer(t, `{"txCode":true}`)
	uri, tx := jstr(t, data, "credentialOfferUri"), jstr(t, data, "txCode")
	guesses := wrongGuesses(tx, 10)
	codes := make([]string, len(guesses))
	for i := range codes {
		codes[i] = codeOn(t, servers[i%2], uri)
	}
	descs := make([]string, len(guesses))
	var wg sync.WaitGroup
	for i, g := range guesses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, body := tokenOn(t, servers[i%2], codes[i], g)
			if st == http.StatusBadRequest && body["error"] == "invalid_grant" {
				descs[i], _ = body["error_description"].(string)
			}
		}()
	}
	wg.Wait()
	counted, atSuspended := 0, 0
	for i, d := range descs {
		switch {
		case strings.HasPrefix(d, "the tx_code is wrong"):
			counted++
		case strings.HasPrefix(d, "the offer was suspended"):
			atSuspended++
		default:
			t.Fatalf("guess %d: %q", i, d)
		}
	}
	require.Equal(t, 5, counted)
	require.Equal(t, 5, atSuspended)
	var failures int
	require.NoError(t, f.DB.Pool.QueryRow(context.Background(),
		"SELECT tx_code_failures FROM credential_offers WHERE id = $1", jstr(t, data, "id")).Scan(&failures))
	require.Equal(t, 5, failures)
}

// TestWallet_OfferCodeBound: an offer URI mints at most 10 codes in the codes' lifetime (10 minutes), counted in the
// database across processes; the 11th fetch is 429 with Retry-After and writes nothing, the codes already minted
// still work, and once the window has passed the URI mints again.
func TestWallet_OfferCodeBound(t *testing.T) {
	f := newWalletFixture(t)
	servers := []string{f.Srv.URL, f.Server(t).URL}
	data := f.offer(t, "")
	uri := jstr(t, data, "credentialOfferUri")
	var codes []string
	for i := range 10 {
		codes = append(codes, codeOn(t, servers[i%2], uri))
	}
	for _, server := range servers {
		st, hdr, body := onServer(t, server, http.MethodGet, uri, "", "")
		require.Equal(t, http.StatusTooManyRequests, st, "%v", body)
		require.Equal(t, "invalid_request", body["error"])
		require.Equal(t, "600", hdr.Get("Retry-After"))
	}
	ctx := context.Background()
	var n int
	require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM preauth_codes").Scan(&n))
	require.Equal(t, 10, n, "the refused fetches wrote nothing")
	st, body := tokenOn(t, servers[1], codes[9], "")
	require.Equal(t, http.StatusOK, st, "%v", body)

	_, err := f.DB.Pool.Exec(ctx, "UPDATE preauth_codes SET created_at = created_at - interval '10 minutes'")
	require.NoError(t, err)
	codeOn(t, servers[0], uri)
}

// TestWallet_NonceBound: the anonymous nonce endpoint gives one client at most 100 unused nonces, counted in the
// database across processes (the test's requests come through loopback, so X-Forwarded-For names the client, as a
// deployment's proxy does); the 101st is 429 with Retry-After, other clients are not affected, a claim that uses
// one of the client's nonces frees its place, and the worker's wallet sweep deletes the client's nonces once
// expired, address and all.
func TestWallet_NonceBound(t *testing.T) {
	f := newWalletFixture(t)
	servers := []string{f.Srv.URL, f.Server(t).URL}
	const flooder = "198.51.100.7"
	var nonces []string
	for i := range 100 {
		st, _, body := f.nonceAs(t, servers[i%2], flooder)
		require.Equal(t, http.StatusOK, st, "nonce %d: %v", i+1, body)
		nonces = append(nonces, body["c_nonce"].(string))
	}
	for _, server := range servers {
		st, hdr, body := f.nonceAs(t, server, flooder)
		require.Equal(t, http.StatusTooManyRequests, st, "%v", body)
		require.Equal(t, "invalid_request", body["error"])
		require.Equal(t, "60", hdr.Get("Retry-After"))
	}
	st, _, _ := f.nonceAs(t, servers[1], "203.0.113.9")
	require.Equal(t, http.StatusOK, st, "another client")
	st, _, _ = f.nonceAs(t, servers[0], "2001:db8:5:6::1")
	require.Equal(t, http.StatusOK, st, "an IPv6 client")
	f.freshNonce(t) // the test's own address

	// A claim with one of the flooder's nonces uses it up: the flooder may have one more.
	wl := newTestWallet(t)
	token, iss := f.accessToken(t)
	st, _, body := f.credentialRequest(t, token, cfgLDP, wl.proof(t, proofSpec{aud: iss, nonce: nonces[0]}))
	require.Equal(t, http.StatusOK, st, "%v", body)
	st, _, _ = f.nonceAs(t, servers[1], flooder)
	require.Equal(t, http.StatusOK, st)
	st, _, _ = f.nonceAs(t, servers[0], flooder)
	require.Equal(t, http.StatusTooManyRequests, st)

	// Expired, the flooder's nonces no longer count, and the worker's sweep deletes them.
	ctx := context.Background()
	_, err := f.DB.Pool.Exec(ctx, "UPDATE wallet_nonces SET expires_at = now() - interval '1 second' WHERE client = $1", flooder)
	require.NoError(t, err)
	st, _, _ = f.nonceAs(t, servers[0], flooder)
	require.Equal(t, http.StatusOK, st)
	purged, err := activities.WalletSweep{DB: f.DB, Log: slog.New(slog.DiscardHandler)}.PurgeOnce(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 100, purged.Nonces)
	var left int
	require.NoError(t, f.DB.Pool.QueryRow(ctx, "SELECT count(*) FROM wallet_nonces WHERE client = $1", flooder).Scan(&left))
	require.Equal(t, 1, left, "only the live one")
}
