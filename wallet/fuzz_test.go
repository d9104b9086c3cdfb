package wallet_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWallet_FuzzEndpoints sends 5,000 generated requests to the token, nonce, credential and notification
// endpoints and the offer URI (mutated forms, JSON, proofs, headers, methods; a real token and nonce among them) and
// requires that none is answered with a 5xx and that every refusal has the protocol's error shape.
func TestWallet_FuzzEndpoints(t *testing.T) {
	f := newWalletFixture(t)
	wl := newTestWallet(t)
	token, iss := f.accessToken(t)
	uri := jstr(t, f.offer(t, ""), "credentialOfferUri")
	rng := rand.New(rand.NewPCG(20, 26))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	junk := func() string {
		b := make([]byte, rng.IntN(64))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return pick(string(b), base64.RawURLEncoding.EncodeToString(b), "", "null", "[]", "{}", `{"a":`, strings.Repeat("{", 200))
	}
	// The fuzzer's nonce requests come from many clients, so the nonce bound per client (most of its nonces go
	// unused) leaves the honest proofs among them a real nonce.
	clientAddr := func() string { return fmt.Sprintf("198.51.%d.%d", rng.IntN(256), rng.IntN(256)) }
	realNonce := func() string {
		st, _, body := f.nonceAs(t, f.Srv.URL, clientAddr())
		require.Equal(t, http.StatusOK, st, "%v", body)
		return body["c_nonce"].(string)
	}
	jwtish := func() string {
		switch rng.IntN(4) {
		case 0:
			return wl.proof(t, proofSpec{aud: pick(iss, "x", ""), nonce: pick("", "n", realNonce()), typ: pick("", "JWT", "openid4vci-proof+jwt")})
		case 1:
			h := base64.RawURLEncoding.EncodeToString([]byte(pick(`{"alg":"none"}`, `{"alg":"EdDSA","typ":"openid4vci-proof+jwt","kid":"did:key:z"}`,
				`{"alg":"ES256","jwk":{"kty":"EC"}}`, `{"alg":"RS256","kid":"did:jwk:e30"}`, junk())))
			return h + "." + base64.RawURLEncoding.EncodeToString([]byte(junk())) + "." + pick("", "sig", junk())
		case 2:
			return junk()
		}
		return strings.Repeat("a.", rng.IntN(5000))
	}
	printable := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	const total = 5000
	client := &http.Client{Timeout: 10 * time.Second}
	for i := 0; i < total; i++ {
		var method, path, ct, body string
		hdr := http.Header{}
		switch rng.IntN(5) {
		case 0:
			method, path, ct = http.MethodPost, "/oid4vci/token", pick("application/x-www-form-urlencoded", "application/json", "", "text/plain")
			body = pick("grant_type=urn:ietf:params:oauth:grant-type:pre-authorized_code&pre-authorized_code="+junk(),
				"grant_type="+junk(), "pre-authorized_code=x&tx_code="+junk()+"&grant_type=urn:ietf:params:oauth:grant-type:pre-authorized_code",
				junk(), "%zz=%")
		case 1:
			method, path, body = pick(http.MethodPost, http.MethodGet, http.MethodPut), "/oid4vci/nonce", junk()
			hdr.Set("X-Forwarded-For", pick(clientAddr(), "127.0.0.1", "unknown, 10.0.0.1"))
		case 2:
			method, path, ct = http.MethodPost, "/oid4vci/credential", pick("application/json", "")
			req := map[string]any{}
			if rng.IntN(4) > 0 {
				req["credential_configuration_id"] = pick(cfgLDP, cfgRS256, cfgEdDSA, junk())
			}
			switch rng.IntN(4) {
			case 0:
				req["proofs"] = map[string]any{"jwt": []string{jwtish()}}
			case 1:
				req["proof"] = map[string]any{"proof_type": pick("jwt", "cwt", ""), "jwt": jwtish()}
			case 2:
				req["proofs"] = pick("x", "")
			}
			b, _ := json.Marshal(req)
			body = pick(string(b), string(b), junk())
			hdr.Set("Authorization", pick("Bearer "+token, "Bearer "+printable(junk()), printable(junk()), "Basic eA==", ""))
		case 3:
			method, path, ct = http.MethodPost, "/oid4vci/notification", "application/json"
			body = pick(`{"notification_id":"`+junk()+`","event":"credential_accepted"}`, `{"event":"`+junk()+`"}`, junk())
			hdr.Set("Authorization", pick("Bearer "+token, "Bearer x", ""))
		default:
			method, path = pick(http.MethodGet, http.MethodPost), pick(strings.TrimPrefix(uri, baseURL), "/oid4vci/offers/"+junk(), "/oid4vci/offers/")
		}
		req, err := http.NewRequest(method, f.Srv.URL+path, bytes.NewReader([]byte(body)))
		if err != nil {
			continue // a junk path that is not a URL never leaves the client
		}
		req.Header = hdr
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		res, err := client.Do(req)
		require.NoError(t, err)
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		require.Less(t, res.StatusCode, 500, "%s %s %.200q: %v", method, path, body, out)
	}
}
