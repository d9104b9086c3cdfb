package wallet_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestExchange_Fuzz sends 2,000 generated requests to an offer's exchange and its protocols object (honest
// presentations with one part mutated or replaced by junk, hostile JSON-LD, junk bodies, unknown offers, other
// methods) and requires that none is answered with a 5xx, that every refusal is a problem, and that no copy was
// written by anything but an honest presentation.
func TestExchange_Fuzz(t *testing.T) {
	f := newWalletFixture(t)
	wl := newTestWallet(t)
	other := newTestWallet(t)
	offer := f.offer(t, "")
	ex := strings.TrimPrefix(jstr(t, offer, "exchangeUrl"), baseURL)
	req := f.vpr(t, baseURL+ex)
	challenge, domain := req["challenge"].(string), req["domain"].(string)
	rng := rand.New(rand.NewPCG(20, 22))
	pick := func(xs ...any) any { return xs[rng.IntN(len(xs))] }
	junk := func() any {
		b := make([]byte, rng.IntN(48))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return pick(string(b), "", nil, 0, -1.5, true, []any{}, map[string]any{}, []any{string(b)}, strings.Repeat("[", 300),
			map[string]any{"@id": string(b)}, map[string]any{"@context": map[string]any{"@vocab": "https://x.example/"}},
			"did:key:z6Mk"+string(b), "https://w3id.org/security/suites/ed25519-2020/v1")
	}
	mutate := func() any {
		vp := wl.didAuth(t, pick(challenge, "made-up").(string), pick(domain, "", "https://x.example").(string), nil)
		if rng.IntN(8) == 0 {
			vp = other.didAuth(t, challenge, domain, nil)
		}
		proof := vp["proof"].(map[string]any)
		keys := []string{"@context", "type", "holder", "proof", "verifiableCredential", "id", "extra"}
		pkeys := []string{"type", "cryptosuite", "created", "verificationMethod", "proofPurpose", "challenge", "domain", "proofValue", "@context"}
		for n := rng.IntN(3); n >= 0; n-- {
			if rng.IntN(2) == 0 {
				vp[keys[rng.IntN(len(keys))]] = junk()
			} else {
				proof[pkeys[rng.IntN(len(pkeys))]] = junk()
			}
		}
		if rng.IntN(10) == 0 {
			vp["proof"] = []any{proof, proof}
		}
		return vp
	}
	const total = 2000
	client := &http.Client{Timeout: 10 * time.Second}
	for i := 0; i < total; i++ {
		method, path := http.MethodPost, ex
		var body []byte
		switch rng.IntN(6) {
		case 0, 1, 2:
			body, _ = json.Marshal(map[string]any{"verifiablePresentation": mutate()})
		case 3:
			body, _ = json.Marshal(mutate()) // the deep link's direct post
		case 4:
			b, _ := json.Marshal(junk())
			body = []byte(pick(string(b), "{}", "", `{"verifiablePresentation":`, strings.Repeat(`{"a":`, 500)).(string))
		default:
			method = pick(http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete).(string)
			path = pick(ex+"/protocols", "/exchanges/"+strings.Repeat("9", rng.IntN(40)), "/exchanges/", ex+"/x").(string)
		}
		req, err := http.NewRequest(method, f.Srv.URL+path, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", pick("application/json", "", "text/plain").(string))
		res, err := client.Do(req)
		require.NoError(t, err)
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		require.Less(t, res.StatusCode, 500, "%s %s %.300s: %v", method, path, body, out)
		if res.StatusCode >= 400 && strings.HasPrefix(path, ex) && method == http.MethodPost && path == ex {
			require.NotEmpty(t, out["type"], "%s: a refusal is a problem: %v", body, out)
		}
	}
	var wrong int
	require.NoError(t, f.DB.Pool.QueryRow(t.Context(), "SELECT count(*) FROM wallet_credentials WHERE holder_did <> $1", wl.did).Scan(&wrong))
	require.Zero(t, wrong, "only the honest holder's presentation claims")
}
