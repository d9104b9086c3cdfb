package credential

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/errcode"
)

// mustSchema compiles the 1EdTech JSON Schema of AchievementCredential / OpenBadgeCredential for VC Data Model
// 2.0 (provenance in testdata/SOURCE.md).
func mustSchema(tb testing.TB) *jsonschema.Schema {
	tb.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustRead(tb, "testdata/ob_v3p0_achievementcredential_vc2.schema.json")))
	require.NoError(tb, err)
	c := jsonschema.NewCompiler()
	require.NoError(tb, c.AddResource("ob_v3p0_achievementcredential_vc2.schema.json", doc))
	s, err := c.Compile("ob_v3p0_achievementcredential_vc2.schema.json")
	require.NoError(tb, err)
	return s
}

func validateSchema(tb testing.TB, s *jsonschema.Schema, credJSON []byte) error {
	tb.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(credJSON))
	require.NoError(tb, err)
	return s.Validate(v)
}

func TestBuildValidatesAgainstOBSchema(t *testing.T) {
	s := mustSchema(t)
	pub, priv := testKey(t)

	minimal := testInput()
	minimal.Issuer.ImageURL, minimal.Issuer.Email, minimal.ValidUntil, minimal.Status = "", "", time.Time{}, nil
	minimal.Achievement.ImageURL, minimal.Achievement.Skills, minimal.Achievement.Tags = "", nil, nil
	minimal.Recipient = Recipient{ID: "did:example:kim"}
	unnamed := testInput()
	unnamed.Recipient.Name = ""

	for name, in := range map[string]BuildInput{"full": testInput(), "minimal": minimal, "unnamed": unnamed} {
		t.Run(name, func(t *testing.T) {
			signed := mustSign(t, mustBuild(t, in), priv, VerificationMethodID(testIssuer, pub))
			require.NoError(t, validateSchema(t, s, signed))
			_, err := Verify(context.Background(), signed, ownResolver(t, pub))
			require.NoError(t, err)
		})
	}

	// The schema check can fail: a credential without credentialSubject is rejected, and so is a name identifier
	// of a type the spec does not list (the schema checks every identifier entry).
	bad := mustBuild(t, testInput())
	delete(bad, "credentialSubject")
	require.Error(t, validateSchema(t, s, mustJSON(t, bad)))
	bad = mustBuild(t, testInput())
	bad["credentialSubject"].(map[string]any)["identifier"].([]any)[1].(map[string]any)["identityType"] = "fullName"
	require.Error(t, validateSchema(t, s, mustJSON(t, bad)))
}

// Every term we write is defined by the OB or VC contexts; none falls back to the VC 2.0 issuer-dependent
// @vocab, which verifiers treat as undefined.
func TestBuildUsesOnlyDefinedTerms(t *testing.T) {
	nq, err := Canonicalize(context.Background(), mustBuild(t, testInput()), DefaultLimits)
	require.NoError(t, err)
	require.NotContains(t, nq, "issuer-dependent")
	for _, want := range []string{
		"<https://purl.imsglobal.org/spec/vc/ob/vocab.html#identityHash> \"sha256$",
		"<https://www.w3.org/ns/credentials/status#statusListIndex> \"94567\"",
		"<https://purl.imsglobal.org/spec/vc/ob/vocab.html#alignment>",
		"<https://schema.org/keywords> \"Leadership\"",
		"\"Nominated by peers.\\nReviewed by staff.\"",
		"<https://www.w3.org/2018/credentials#validUntil> \"2027-03-01T15:00:00Z\"",
		"<https://purl.imsglobal.org/spec/vc/ob/vocab.html#identityType> \"name\"",
		"<https://purl.imsglobal.org/spec/vc/ob/vocab.html#identityHash> \"김민수 (Minsu Kim)\"",
		// OB 3.0.3's context types hashed with an https XML Schema IRI, as published; json-gold writes it so.
		"<https://purl.imsglobal.org/spec/vc/ob/vocab.html#hashed> \"false\"^^<https://www.w3.org/2001/XMLSchema#boolean>",
	} {
		require.Contains(t, nq, want)
	}
}

func TestBuildContent(t *testing.T) {
	m := mustBuild(t, testInput())
	require.Equal(t, []any{ContextCredentialsV2, ContextOB303}, m["@context"])
	require.Equal(t, "2025-03-01T09:30:00Z", m["validFrom"])
	require.Equal(t, "Teamwork", m["name"])
	id := m["credentialSubject"].(map[string]any)["identifier"].([]any)[0].(map[string]any)
	// sha256("kim@example.com" + "c0ffee"): the email is trimmed and lower-cased first.
	require.Equal(t, HashIdentity(" kim@example.com", "c0ffee"), id["identityHash"])
	require.True(t, strings.HasPrefix(id["identityHash"].(string), "sha256$"))
	require.Len(t, id["identityHash"], len("sha256$")+64)
	// The name, in plain text, after the hashed e-mail (OB 3.0 IdentityObject of identityType "name").
	ids := m["credentialSubject"].(map[string]any)["identifier"].([]any)
	require.Len(t, ids, 2)
	require.Equal(t, map[string]any{"type": "IdentityObject", "identityType": "name", "hashed": false,
		"identityHash": "김민수 (Minsu Kim)"}, ids[1])

	in0 := testInput()
	in0.Recipient.Name = "  "
	require.Len(t, mustBuild(t, in0)["credentialSubject"].(map[string]any)["identifier"], 1, "a blank name is left out")
	in0.Recipient = Recipient{ID: "did:example:kim", Name: "Kim"}
	require.Equal(t, []any{NameIdentity("Kim")}, mustBuild(t, in0)["credentialSubject"].(map[string]any)["identifier"])
	in0.Recipient = Recipient{Name: "Kim"}
	_, err := Build(in0)
	require.Equal(t, errcode.RecipientIdentityMissing, errcode.Of(err), "a name alone identifies no one")

	in := testInput()
	in.Recipient.Salt = ""
	a, b := mustBuild(t, in), mustBuild(t, in)
	saltOf := func(m map[string]any) any {
		return m["credentialSubject"].(map[string]any)["identifier"].([]any)[0].(map[string]any)["salt"]
	}
	require.NotEqual(t, saltOf(a), saltOf(b), "a random salt per credential")
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(in *BuildInput)
		want   errcode.Code
	}{
		{"no id", func(in *BuildInput) { in.ID = "" }, errcode.MissingInfo},
		{"no issuer name", func(in *BuildInput) { in.Issuer.Name = " " }, errcode.MissingInfo},
		{"no achievement description", func(in *BuildInput) { in.Achievement.Description = "" }, errcode.MissingInfo},
		{"no validFrom", func(in *BuildInput) { in.ValidFrom = time.Time{} }, errcode.MissingInfo},
		{"relative url", func(in *BuildInput) { in.Achievement.ID = "/badges/77" }, errcode.MissingInfo},
		{"expiry before issue", func(in *BuildInput) { in.ValidUntil = in.ValidFrom.Add(-time.Hour) }, errcode.MissingInfo},
		{"no recipient", func(in *BuildInput) { in.Recipient = Recipient{} }, errcode.RecipientIdentityMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput()
			tt.mutate(&in)
			_, err := Build(in)
			require.Equal(t, tt.want, errcode.Of(err), "%v", err)
		})
	}
}
