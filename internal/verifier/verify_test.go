package verifier

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
)

func TestReport_Verdict(t *testing.T) {
	ok := Check{Name: "signature", Result: ResultOK}
	notChecked := Check{Name: "status", Result: ResultNotChecked}
	couldNot := Check{Name: "anchor transaction", Result: ResultCouldNotCheck, CouldNotCheck: true}
	failed := Check{Name: "status", Result: "revoked", Failed: true}
	tests := []struct {
		name   string
		checks []Check
		want   Verdict
	}{
		{"all ok", []Check{ok}, VerdictValid},
		{"left out by the options", []Check{ok, notChecked}, VerdictValid},
		{"could not check", []Check{ok, couldNot, notChecked}, VerdictCouldNotCheck},
		{"a failure outweighs what could not be checked", []Check{couldNot, failed}, VerdictInvalid},
		{"nothing checked", nil, VerdictCouldNotCheck},
	}
	for _, tt := range tests {
		r := &Report{Checks: tt.checks}
		require.Equal(t, tt.want, r.Verdict(), tt.name)
		require.Equal(t, tt.want == VerdictValid, r.Valid(), tt.name)
	}
}

// TestResolver_CouldNotCheckOrFailed: a key the resolver cannot have is "could not check" (unavailable); a key that
// the issuer's document, fetched or given, does not list is a failure.
func TestResolver_CouldNotCheckOrFailed(t *testing.T) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	otherPub, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	docs := map[string][]byte{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs[r.URL.Path]
		if !ok {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	controller := func(id string, key ed25519.PublicKey) []byte {
		b, err := json.Marshal(credential.ControllerDocument(id, key))
		require.NoError(t, err)
		return b
	}
	issuer := srv.URL + "/issuers/1"
	vm := credential.VerificationMethodID(issuer, pub)
	docs["/issuers/1"] = controller(issuer, pub)
	docs["/issuers/rotated"] = controller(srv.URL+"/issuers/rotated", otherPub)
	docs["/issuers/html"] = []byte("<html>captive portal</html>")
	rotatedVM := credential.VerificationMethodID(srv.URL+"/issuers/rotated", pub)
	htmlVM := credential.VerificationMethodID(srv.URL+"/issuers/html", pub)
	downVM := credential.VerificationMethodID(srv.URL+"/issuers/down", pub)
	didKey := "did:key:" + credential.EncodeMultikey(pub)

	online, err := NewResolver(nil, NewHTTPFetcher())
	require.NoError(t, err)
	offline, err := NewResolver(nil, nil)
	require.NoError(t, err)
	given, err := NewResolver([][]byte{controller(issuer, otherPub)}, nil)
	require.NoError(t, err)

	tests := []struct {
		name        string
		r           credential.Resolver
		vm          string
		unavailable bool
		want        string
	}{
		{"fetched", online, vm, false, ""},
		{"did:key, offline", offline, didKey + "#" + credential.EncodeMultikey(pub), false, ""},
		{"fetched document without the key", online, rotatedVM, false, "verification method not found"},
		{"document unreachable", online, downVM, true, "503"},
		{"not a document", online, htmlVM, true, "answered no controller document"},
		{"unresolvable controller", online, "did:example:123#key-1", true, "neither did:key, https nor did:web"},
		{"offline", offline, vm, true, "which is not fetched offline; give it with --controller FILE"},
		{"given document without the key", given, vm, false, "the given controller document " + issuer + " does not list"},
		{"a did:key that is no key", offline, "did:key:z6Mknotakey#z6Mknotakey", false, "verification method not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := tt.r.ResolveKey(context.Background(), tt.vm)
			if tt.want == "" {
				require.NoError(t, err)
				require.Equal(t, ed25519.PublicKey(pub), k.PublicKey)
				return
			}
			require.ErrorContains(t, err, tt.want)
			require.Equal(t, tt.unavailable, isUnavailable(err), "%v", err)
		})
	}
}
