package credential

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
)

const testIssuer = "https://badges.example/issuers/org-1"

func testKey(tb testing.TB) (ed25519.PublicKey, ed25519.PrivateKey) {
	tb.Helper()
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))
	return priv.Public().(ed25519.PublicKey), priv
}

func testInput() BuildInput {
	return BuildInput{
		ID:         "https://badges.example/v3/credentials/3f2c",
		Issuer:     Issuer{ID: testIssuer, Name: "예시 대학교", URL: "https://univ.example", ImageURL: "https://badges.example/img/org-1.png", Email: "badges@univ.example"},
		ValidFrom:  time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC),
		ValidUntil: time.Date(2027, 3, 1, 15, 0, 0, 0, time.UTC),
		Recipient:  Recipient{Email: "Kim@Example.com", Salt: "c0ffee", Name: "김민수 (Minsu Kim)"},
		Achievement: Achievement{
			ID: "https://badges.example/v3/badges/77", Name: "Teamwork", Description: "Works well \"in\" teams.",
			CriteriaNarrative: "Nominated by peers.\nReviewed by staff.", ImageURL: "https://badges.example/img/77.png",
			Skills: []Skill{{Name: "Collaboration", URL: "https://skills.example/collab", Framework: "ESCO", Code: "S1.2"}, {Name: "Leadership"}},
			Tags:   []string{"soft-skills"},
		},
		Status: &StatusEntry{ListCredential: "https://badges.example/v3/status/org-1/1", Index: 94567},
	}
}

func mustBuild(tb testing.TB, in BuildInput) map[string]any {
	tb.Helper()
	m, err := Build(in)
	require.NoError(tb, err)
	return m
}

func mustSign(tb testing.TB, doc any, priv ed25519.PrivateKey, vm string) []byte {
	tb.Helper()
	out, err := Sign(context.Background(), doc, priv, SignOptions{VerificationMethod: vm, Created: time.Date(2025, 3, 1, 9, 30, 5, 0, time.UTC)})
	require.NoError(tb, err)
	return out
}

func ownResolver(tb testing.TB, pub ed25519.PublicKey) Resolver {
	tb.Helper()
	r, err := NewStaticResolver(mustJSON(tb, ControllerDocument(testIssuer, pub)))
	require.NoError(tb, err)
	return r
}

func TestSignVerifyRoundTrip(t *testing.T) {
	pub, priv := testKey(t)
	signed := mustSign(t, mustBuild(t, testInput()), priv, VerificationMethodID(testIssuer, pub))
	res, err := Verify(context.Background(), signed, ownResolver(t, pub))
	require.NoError(t, err)
	require.Equal(t, testIssuer, res.Issuer)
	require.Equal(t, VerificationMethodID(testIssuer, pub), res.VerificationMethod)
	require.Equal(t, time.Date(2025, 3, 1, 9, 30, 5, 0, time.UTC), res.Created)
}

func TestVerifyRejectsTampering(t *testing.T) {
	pub, priv := testKey(t)
	signed := mustSign(t, mustBuild(t, testInput()), priv, VerificationMethodID(testIssuer, pub))
	r := ownResolver(t, pub)
	tests := []struct {
		name   string
		mutate func(m map[string]any)
	}{
		{"credential name", func(m map[string]any) { m["name"] = "Teamwork!" }},
		{"validFrom", func(m map[string]any) { m["validFrom"] = "2025-03-01T09:30:01Z" }},
		{"validUntil removed", func(m map[string]any) { delete(m, "validUntil") }},
		{"issuer name", func(m map[string]any) { m["issuer"].(map[string]any)["name"] = "Other" }},
		{"achievement name", func(m map[string]any) {
			m["credentialSubject"].(map[string]any)["achievement"].(map[string]any)["name"] = "Leadership"
		}},
		{"criteria", func(m map[string]any) {
			ach := m["credentialSubject"].(map[string]any)["achievement"].(map[string]any)
			ach["criteria"].(map[string]any)["narrative"] = "Nobody"
		}},
		{"identity hash", func(m map[string]any) {
			id := m["credentialSubject"].(map[string]any)["identifier"].([]any)[0].(map[string]any)
			id["identityHash"] = HashIdentity("eve@example.com", "c0ffee")
		}},
		{"status index", func(m map[string]any) { m["credentialStatus"].(map[string]any)["statusListIndex"] = "1" }},
		{"added subject id", func(m map[string]any) { m["credentialSubject"].(map[string]any)["id"] = "did:example:eve" }},
		// (AchievementCredential would verify: the OB context maps it to the same IRI as OpenBadgeCredential.)
		{"type", func(m map[string]any) { m["type"] = []any{"VerifiableCredential", "EndorsementCredential"} }},
		{"proof created", func(m map[string]any) { m["proof"].([]any)[0].(map[string]any)["created"] = "2025-03-01T09:30:06Z" }},
		{"proof purpose", func(m map[string]any) { m["proof"].([]any)[0].(map[string]any)["proofPurpose"] = "authentication" }},
		{"proof value", func(m map[string]any) {
			p := m["proof"].([]any)[0].(map[string]any)
			v := []byte(p["proofValue"].(string))
			v[10] = map[bool]byte{true: 'A', false: 'B'}[v[10] != 'A']
			p["proofValue"] = string(v)
		}},
		{"proof removed", func(m map[string]any) { delete(m, "proof") }},
		{"cryptosuite", func(m map[string]any) { m["proof"].([]any)[0].(map[string]any)["cryptosuite"] = "eddsa-jcs-2022" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal(signed, &m))
			tt.mutate(m)
			_, err := Verify(context.Background(), mustJSON(t, m), r)
			require.Error(t, err)
		})
	}
	// JSON formatting is not signed: re-serializing the same data still verifies.
	var m map[string]any
	require.NoError(t, json.Unmarshal(signed, &m))
	pretty, err := json.MarshalIndent(m, "", "    ")
	require.NoError(t, err)
	_, err = Verify(context.Background(), pretty, r)
	require.NoError(t, err)
}

func TestVerifyKeyMustBelongToIssuer(t *testing.T) {
	pub, priv := testKey(t)
	// An attacker signs a credential naming our issuer with a key from their own controller document.
	evilPub, evilPriv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	evil := "https://evil.example/issuer"
	signed := mustSign(t, mustBuild(t, testInput()), evilPriv, VerificationMethodID(evil, evilPub))
	r, err := NewStaticResolver(mustJSON(t, ControllerDocument(evil, evilPub)), mustJSON(t, ControllerDocument(testIssuer, pub)))
	require.NoError(t, err)
	_, err = Verify(context.Background(), signed, r)
	require.ErrorIs(t, err, ErrInvalidProof)

	// An unknown verification method is a resolver error.
	signed = mustSign(t, mustBuild(t, testInput()), priv, testIssuer+"#other-key")
	_, err = Verify(context.Background(), signed, r)
	require.ErrorIs(t, err, ErrKeyNotFound)
}

func TestVerifyDIDKey(t *testing.T) {
	pub, priv := testKey(t)
	did := "did:key:" + EncodeMultikey(pub)
	in := testInput()
	in.Issuer.ID = did
	signed := mustSign(t, mustBuild(t, in), priv, did+"#"+EncodeMultikey(pub))
	res, err := Verify(context.Background(), signed, Resolvers{&StaticResolver{}, DIDKeyResolver{}})
	require.NoError(t, err)
	require.Equal(t, did, res.Issuer)
}

// A VC Data Model 1.1 credential (issuanceDate, data-integrity context) from another issuer verifies too.
func TestSignVerifyVC11(t *testing.T) {
	pub, priv := testKey(t)
	doc := map[string]any{
		"@context":     []any{ContextCredentialsV1, ContextOB302, ContextDataIntegrityV2},
		"id":           "urn:uuid:91537dba-56cb-11ec-bf63-0242ac130002",
		"type":         []any{"VerifiableCredential", "OpenBadgeCredential"},
		"issuer":       map[string]any{"id": testIssuer, "type": "Profile", "name": "Example"},
		"issuanceDate": "2024-01-01T00:00:00Z",
		"name":         "Example",
		"credentialSubject": map[string]any{"type": "AchievementSubject", "achievement": map[string]any{
			"id": "urn:uuid:a7467ef6-56cb-11ec-bf63-0242ac130002", "type": "Achievement", "name": "A",
			"description": "A", "criteria": map[string]any{"narrative": "n"},
		}},
	}
	signed := mustSign(t, doc, priv, VerificationMethodID(testIssuer, pub))
	_, err := Verify(context.Background(), signed, ownResolver(t, pub))
	require.NoError(t, err)
}

func TestSignErrorCodes(t *testing.T) {
	_, priv := testKey(t)
	ctx := context.Background()
	opts := SignOptions{VerificationMethod: testIssuer + "#k", Created: time.Now()}
	tests := []struct {
		name string
		doc  any
		key  ed25519.PrivateKey
		want errcode.Code
	}{
		{"not json", []byte("{"), priv, errcode.CredentialSerializationFailed},
		{"undefined term", map[string]any{"@context": ContextCredentialsV1, "id": "urn:x:1", "bogus": 1}, priv, errcode.CredentialCanonicalizationFailed},
		{"unknown context", map[string]any{"@context": "https://example.com/ctx", "id": "urn:x:1"}, priv, errcode.CredentialCanonicalizationFailed},
		{"bad key", mustBuild(t, testInput()), ed25519.PrivateKey{1, 2, 3}, errcode.CredentialSigningFailed},
		{"empty document", map[string]any{"@context": ContextCredentialsV2}, priv, errcode.CredentialHashFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Sign(ctx, tt.doc, tt.key, opts)
			require.Equal(t, tt.want, errcode.Of(err), "%v", err)
		})
	}
}

type fakeFetcher map[string][]byte

func (f fakeFetcher) FetchController(_ context.Context, url string) ([]byte, error) {
	if b, ok := f[url]; ok {
		return b, nil
	}
	return nil, errors.New("404")
}

func TestFetchingResolver(t *testing.T) {
	pub, priv := testKey(t)
	didWeb := "did:web:badges.example:issuers:org-1"
	in := testInput()
	in.Issuer.ID = didWeb
	signed := mustSign(t, mustBuild(t, in), priv, VerificationMethodID(didWeb, pub))
	r := FetchingResolver{Fetcher: fakeFetcher{
		"https://badges.example/issuers/org-1/did.json": mustJSON(t, ControllerDocument(didWeb, pub)),
	}}
	_, err := Verify(context.Background(), signed, r)
	require.NoError(t, err)

	_, err = Verify(context.Background(), signed, FetchingResolver{Fetcher: fakeFetcher{}})
	require.ErrorContains(t, err, "404")
}

func TestControllerURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"did:web:example.com", "https://example.com/.well-known/did.json"},
		{"did:web:example.com%3A8443:a:b", "https://example.com:8443/a/b/did.json"},
		{"https://example.edu/issuers/565049", "https://example.edu/issuers/565049"},
	}
	for _, tt := range tests {
		got, err := ControllerURL(tt.in)
		require.NoError(t, err)
		require.Equal(t, tt.want, got)
	}
	for _, bad := range []string{"http://example.com/x", "did:example:1", "did:web:"} {
		_, err := ControllerURL(bad)
		require.ErrorIs(t, err, ErrKeyNotFound, bad)
	}
}
