package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/baking"
	"github.com/badged/badged/internal/credential"
)

const (
	vectorSigned     = "../../internal/credential/testdata/1edtech-obv3p0-signed.json"
	vectorController = "../../internal/credential/testdata/1edtech-obv3p0-controller.json"
)

// runCred runs `badged credential ARGS...` and returns what it printed.
func runCred(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := runCredential(context.Background(), args, &out)
	return out.String(), err
}

// requireVerdict checks the verdict, the last line of out, and the exit status main makes of err: 0 for VALID, 1
// for INVALID and TEST, 3 for COULD NOT CHECK, with nothing on stderr (the verdict is on stdout).
func requireVerdict(t *testing.T, want, out string, err error) {
	t.Helper()
	require.True(t, strings.HasSuffix(out, "\n"+want+"\n"), "want the verdict %q:\n%s", want, out)
	code := map[string]int{"VALID": 0, "INVALID": 1, "TEST:": 1, "COULD": 3}[strings.Fields(want)[0]]
	var stderr bytes.Buffer
	require.Equal(t, code, exitCode(err, []string{"credential", "verify"}, &stderr), "%v\n%s", err, out)
	require.Empty(t, stderr.String(), "a verdict prints nothing on stderr")
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

func TestCredentialVerify_1EdTechVector(t *testing.T) {
	signed, err := os.ReadFile(vectorSigned)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(signed, &doc))
	doc["name"] = "Teamwork Badge (forged)"
	tampered, err := json.Marshal(doc)
	require.NoError(t, err)

	tests := []struct {
		name    string
		args    []string
		verdict string
		want    string
	}{
		{"controller given", []string{"--offline", "--controller", vectorController, vectorSigned}, "VALID (not checked: anchor)",
			"signature: ok (eddsa-rdfc-2022 by https://example.edu/issuers/565049#z6MkjZRZv3aez3r18pB1RBFJR1kwUVJ5jHt92JmQwXbd5hwi"},
		{"flags after file", []string{vectorSigned, "--controller", vectorController, "--offline"}, "VALID (not checked: anchor)", "status: none"},
		{"name changed", []string{"--offline", "--controller", vectorController, writeTemp(t, "tampered.json", tampered)},
			"INVALID (signature: failed)", "signature: failed (invalid proof: signature does not verify)"},
		// Without the issuer's key the proof cannot be checked, whatever it is: a forgery is not told from the real
		// one, and neither is called invalid.
		{"no key offline", []string{"--offline", vectorSigned}, "COULD NOT CHECK (signature; not checked: anchor)",
			"signature: could not check (resolve https://example.edu/issuers/565049#z6MkjZRZv3aez3r18pB1RBFJR1kwUVJ5jHt92JmQwXbd5hwi: " +
				"offline: the issuer's key is in its controller document https://example.edu/issuers/565049, which is not fetched offline; " +
				"give it with --controller FILE)"},
		{"name changed, no key offline", []string{"--offline", writeTemp(t, "tampered.json", tampered)},
			"COULD NOT CHECK (signature; not checked: anchor)", "signature: could not check ("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCred(t, append([]string{"verify"}, tt.args...)...)
			requireVerdict(t, tt.verdict, out, err)
			require.Contains(t, out, tt.want)
			require.Contains(t, out, "credential: http://example.com/credentials/3527 (json, issuer https://example.edu/issuers/565049)")
		})
	}
}

// didKeyIssuer is an issuer identified by a did:key, resolvable offline.
type didKeyIssuer struct {
	id, vm string
	key    ed25519.PrivateKey
}

func newDIDKeyIssuer(t *testing.T) didKeyIssuer {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	id := "did:key:" + credential.EncodeMultikey(pub)
	return didKeyIssuer{id: id, vm: id + "#" + credential.EncodeMultikey(pub), key: priv}
}

func buildInput(issuerID string, from, until time.Time) credential.BuildInput {
	return credential.BuildInput{
		ID:          "https://badges.example/credentials/1",
		Issuer:      credential.Issuer{ID: issuerID, Name: "Example Academy", URL: "https://academy.example"},
		ValidFrom:   from,
		ValidUntil:  until,
		Recipient:   credential.Recipient{Email: "kim@example.com", Salt: "s"},
		Achievement: credential.Achievement{ID: "https://badges.example/badges/go", Name: "Go", Description: "Writes Go.", CriteriaNarrative: "Wrote Go."},
	}
}

func mustSign(t *testing.T, in credential.BuildInput, key ed25519.PrivateKey, vm string) []byte {
	t.Helper()
	doc, err := credential.Build(in)
	require.NoError(t, err)
	signed, err := credential.Sign(context.Background(), doc, key, credential.SignOptions{VerificationMethod: vm, Created: time.Now()})
	require.NoError(t, err)
	return signed
}

func mustBadgePNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range 8 {
		img.Set(i, i, color.RGBA{R: 200, A: 255})
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

const badgeSVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle cx="4" cy="4" r="3"/></svg>`

func TestCredentialVerify_DIDKeyAndBaked(t *testing.T) {
	iss := newDIDKeyIssuer(t)
	now := time.Now()
	signed := mustSign(t, buildInput(iss.id, now.Add(-time.Hour), now.Add(24*time.Hour)), iss.key, iss.vm)
	bakedPNG, ct, err := baking.Bake(mustBadgePNG(t), signed)
	require.NoError(t, err)
	require.Equal(t, baking.ContentTypePNG, ct)
	bakedSVG, ct, err := baking.Bake([]byte(badgeSVG), signed)
	require.NoError(t, err)
	require.Equal(t, baking.ContentTypeSVG, ct)
	var pretty bytes.Buffer
	require.NoError(t, json.Indent(&pretty, signed, "", "  "))
	pretty.WriteByte('\n')

	for _, in := range []struct {
		format string
		data   []byte
	}{{"json", signed}, {"png", bakedPNG}, {"svg", bakedSVG}} {
		t.Run(in.format, func(t *testing.T) {
			// A misleading extension: the format is read from the content.
			file := writeTemp(t, "badge.bin", in.data)
			out, err := runCred(t, "verify", "--offline", file)
			requireVerdict(t, "VALID (not checked: anchor)", out, err)
			require.Contains(t, out, "("+in.format+", issuer "+iss.id+")")
			require.Contains(t, out, "signature: ok (eddsa-rdfc-2022 by "+iss.vm)
			require.Contains(t, out, "expiry: ok (valid from ")
			require.Contains(t, out, "anchor: not checked")
			if in.format == "json" {
				_, err := runCred(t, "unbake", file)
				require.ErrorContains(t, err, "not a baked image")
				return
			}
			out, err = runCred(t, "unbake", file)
			require.NoError(t, err)
			require.Equal(t, pretty.String(), out)
			out, err = runCred(t, "unbake", "--raw", file)
			require.NoError(t, err)
			require.Equal(t, string(signed), out)
		})
	}
}

func TestCredentialVerify_Expiry(t *testing.T) {
	iss := newDIDKeyIssuer(t)
	now := time.Now()
	tests := []struct {
		name        string
		from, until time.Time
		want        string
	}{
		{"expired", now.Add(-48 * time.Hour), now.Add(-time.Hour), "expiry: expired (valid until "},
		{"not yet valid", now.Add(time.Hour), time.Time{}, "expiry: not yet valid (valid from "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeTemp(t, "c.json", mustSign(t, buildInput(iss.id, tt.from, tt.until), iss.key, iss.vm))
			out, err := runCred(t, "verify", "--offline", file)
			requireVerdict(t, "INVALID (expiry: "+tt.name+")", out, err)
			require.Contains(t, out, "signature: ok")
			require.Contains(t, out, tt.want)
		})
	}
}

// fakeIssuer serves a controller document and a signed status list over HTTP on 127.0.0.1, like the dev server.
type fakeIssuer struct {
	srv        *httptest.Server
	id, vm     string
	key        ed25519.PrivateKey
	listURL    string
	controller []byte
	mu         sync.Mutex
	list       []byte            // signed status list credential
	asked      int               // requests served, of any path
	files      map[string][]byte // more documents by path (credentials, receipts)
}

// requests returns how many requests the issuer has served.
func (f *fakeIssuer) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked
}

func newFakeIssuer(t *testing.T) *fakeIssuer {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	f := &fakeIssuer{key: priv, files: map[string][]byte{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /credentials/", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		body, ok := f.files[r.URL.Path]
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	})
	mux.HandleFunc("GET /issuers/1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/did+ld+json")
		_, _ = w.Write(f.controller)
	})
	mux.HandleFunc("GET /status-lists/1", func(w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		w.Header().Set("Content-Type", "application/vc+ld+json")
		_, _ = w.Write(f.list)
	})
	mux.HandleFunc("GET /credentials/1/status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"state":"REVOKED","revokedAt":"2026-03-01T02:00:00Z","revocationReason":"Issued by\nmistake"}`))
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.asked++
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	f.id = f.srv.URL + "/issuers/1"
	f.vm = credential.VerificationMethodID(f.id, pub)
	f.listURL = f.srv.URL + "/status-lists/1"
	f.controller, err = json.Marshal(credential.ControllerDocument(f.id, pub))
	require.NoError(t, err)
	f.setRevoked(t, -1)
	return f
}

// setRevoked publishes a freshly signed status list with bit i set (none when i < 0).
func (f *fakeIssuer) setRevoked(t *testing.T, i int) {
	t.Helper()
	l := credential.NewStatusList(0)
	if i >= 0 {
		require.NoError(t, l.Set(i, true))
	}
	enc, err := l.Encode()
	require.NoError(t, err)
	signed, err := credential.Sign(context.Background(),
		credential.BuildStatusListCredential(f.listURL, f.id, enc, time.Now().Add(-time.Minute)), f.key,
		credential.SignOptions{VerificationMethod: f.vm, Created: time.Now()})
	require.NoError(t, err)
	f.mu.Lock()
	f.list = signed
	f.mu.Unlock()
}

func TestCredentialVerify_FetchesControllerAndStatus(t *testing.T) {
	f := newFakeIssuer(t)
	in := buildInput(f.id, time.Now().Add(-time.Hour), time.Time{})
	in.Status = &credential.StatusEntry{ListCredential: f.listURL, Index: 42}
	file := writeTemp(t, "c.json", mustSign(t, in, f.key, f.vm))

	// The credential id is not on the issuer's host: no receipt is asked for, the anchor is "none".
	out, err := runCred(t, "verify", file)
	requireVerdict(t, "VALID", out, err)
	require.Contains(t, out, "signature: ok (eddsa-rdfc-2022 by "+f.vm)
	require.Contains(t, out, "status: ok (not revoked: bit 42 of "+f.listURL+")")
	require.Contains(t, out, "expiry: ok (valid from ")
	require.Contains(t, out, "does not expire")

	// Offline with a trusted controller document: valid, and the status is said not to be checked.
	ctrl := writeTemp(t, "ctrl.json", f.controller)
	requests := f.requests()
	out, err = runCred(t, "verify", "--offline", "--controller", ctrl, file)
	requireVerdict(t, "VALID (not checked: status, anchor)", out, err)
	require.Contains(t, out, "status: not checked (offline: the status list "+f.listURL+" is not fetched)")
	require.Equal(t, requests, f.requests(), "offline asked the issuer")

	f.setRevoked(t, 42)
	out, err = runCred(t, "verify", file)
	requireVerdict(t, "INVALID (status: revoked)", out, err)
	require.Contains(t, out, "signature: ok")
	require.Contains(t, out, "status: revoked (bit 42 of "+f.listURL+" is set)")

	// A status list signed by someone else does not count, revoked or not.
	other := newDIDKeyIssuer(t)
	l := credential.NewStatusList(0)
	enc, err := l.Encode()
	require.NoError(t, err)
	forged, err := credential.Sign(context.Background(), credential.BuildStatusListCredential(f.listURL, f.id, enc, time.Now()),
		other.key, credential.SignOptions{VerificationMethod: other.vm, Created: time.Now()})
	require.NoError(t, err)
	f.mu.Lock()
	f.list = forged
	f.mu.Unlock()
	out, err = runCred(t, "verify", file)
	requireVerdict(t, "INVALID (status: failed)", out, err)
	require.Contains(t, out, "status: failed (status list "+f.listURL+": proof: invalid proof: key controller")

	// An answer that is no list credential (a proxy's error page) says nothing of the credential.
	f.mu.Lock()
	f.list = []byte("<html>Service Unavailable</html>")
	f.mu.Unlock()
	out, err = runCred(t, "verify", file)
	requireVerdict(t, "COULD NOT CHECK (status)", out, err)
	require.Contains(t, out, "status: could not check (status list "+f.listURL+": not a status list credential: ")

	// An unreachable list is not a pass, and not a proof of anything either.
	f.srv.Close()
	out, err = runCred(t, "verify", "--controller", ctrl, file)
	requireVerdict(t, "COULD NOT CHECK (status)", out, err)
	require.Contains(t, out, "signature: ok")
	require.Contains(t, out, "status: could not check (status list: fetch "+f.listURL)

	// Nor is an unreachable issuer: without its controller document there is no key to check the proof with.
	out, err = runCred(t, "verify", file)
	requireVerdict(t, "COULD NOT CHECK (signature, status)", out, err)
	require.Contains(t, out, "signature: could not check (resolve "+f.vm+": fetch controller document "+f.id+": ")
}

// TestCredentialVerify_TestIssuer: a credential whose key comes from a document marked as a test issuer is reported
// as TEST and the command fails, though its proof, status and dates all hold; online (the document fetched) and
// offline (the document given with --controller).
func TestCredentialVerify_TestIssuer(t *testing.T) {
	f := newFakeIssuer(t)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(f.controller, &doc))
	credential.MarkTestIssuer(doc, f.srv.URL+"/issuers/live", "[TEST] Acme", "a test issuer")
	marked, err := json.Marshal(doc)
	require.NoError(t, err)
	f.mu.Lock()
	f.controller = marked
	f.mu.Unlock()
	in := buildInput(f.id, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	in.Status = &credential.StatusEntry{ListCredential: f.listURL, Index: 7}
	file := writeTemp(t, "c.json", mustSign(t, in, f.key, f.vm))
	for _, args := range [][]string{{"verify", file}, {"verify", "--offline", "--controller", writeTemp(t, "ctrl.json", marked), file}} {
		out, err := runCred(t, args...)
		require.ErrorIs(t, err, errInvalid, out)
		require.Contains(t, out, "signature: ok")
		require.Contains(t, out, "issuer: test (the issuer's document marks "+f.id+" as the test issuer of "+f.srv.URL+"/issuers/live")
		require.True(t, strings.HasSuffix(out, "\nTEST: signed by the test issuer of "+f.srv.URL+"/issuers/live; a test-mode credential, not a real badge\n"), out)
		require.NotContains(t, out, "VALID")
	}
}

// TestCredentialVerify_RevocationReason: for a revoked credential of a badged issuer (its id on the issuer's host),
// the date and reason from <id>/status are printed as the issuer's statement; another host's id is not asked.
func TestCredentialVerify_RevocationReason(t *testing.T) {
	f := newFakeIssuer(t)
	f.setRevoked(t, 7)
	in := buildInput(f.id, time.Now().Add(-time.Hour), time.Time{})
	in.Status = &credential.StatusEntry{ListCredential: f.listURL, Index: 7}
	in.ID = f.srv.URL + "/credentials/1"
	out, err := runCred(t, "verify", writeTemp(t, "c.json", mustSign(t, in, f.key, f.vm)))
	requireVerdict(t, "INVALID (status: revoked)", out, err)
	require.Contains(t, out, "status: revoked (bit 7 of ")
	require.Contains(t, out, "revoked on 2026-03-01T02:00:00Z (issuer's statement): Issued by mistake\n")

	in.ID = "https://badges.example/credentials/1"
	out, err = runCred(t, "verify", writeTemp(t, "d.json", mustSign(t, in, f.key, f.vm)))
	requireVerdict(t, "INVALID (status: revoked)", out, err)
	require.NotContains(t, out, "issuer's statement")
}
