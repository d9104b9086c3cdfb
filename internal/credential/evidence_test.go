package credential

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func evidenceInput() BuildInput {
	in := testInput()
	in.Evidence = []Evidence{
		{URL: "https://portfolio.example/kim/capstone?x=1&y=2", Name: "Capstone project", Narrative: "Built a compiler.\n팀 프로젝트.", Genre: "Project"},
		{Narrative: "Presented to the faculty."},
		{URL: "https://video.example/talk", Name: "Talk"},
	}
	return in
}

// TestBuildEvidence: evidence is written as OB 3.0 Evidence items (URL as id), every term defined by the OB
// context (so the proof covers it), the fast canonicalization agrees with json-gold, the credential validates
// against 1EdTech's schema, signs and verifies, a changed item breaks the proof, and ReadFacts reads it back.
func TestBuildEvidence(t *testing.T) {
	doc := mustBuild(t, evidenceInput())
	require.Equal(t, []any{
		map[string]any{"type": []any{"Evidence"}, "id": "https://portfolio.example/kim/capstone?x=1&y=2", "name": "Capstone project",
			"narrative": "Built a compiler.\n팀 프로젝트.", "genre": "Project"},
		map[string]any{"type": []any{"Evidence"}, "narrative": "Presented to the faculty."},
		map[string]any{"type": []any{"Evidence"}, "id": "https://video.example/talk", "name": "Talk"},
	}, doc["evidence"])
	require.NotContains(t, mustBuild(t, testInput()), "evidence", "no evidence, no property")

	nq, fast := diffCanon(t, doc)
	require.True(t, fast, "the fast path takes a credential with evidence")
	require.NotContains(t, nq, "issuer-dependent")
	for _, want := range []string{
		"<https://purl.imsglobal.org/spec/vc/ob/vocab.html#Evidence>",
		"<https://schema.org/genre> \"Project\"",
		"<https://www.w3.org/2018/credentials#evidence> <https://video.example/talk>",
		"<https://portfolio.example/kim/capstone?x=1&y=2>",
	} {
		require.Contains(t, nq, want)
	}

	pub, priv := testKey(t)
	signed := mustSign(t, doc, priv, VerificationMethodID(testIssuer, pub))
	require.NoError(t, validateSchema(t, mustSchema(t), signed))
	_, err := Verify(context.Background(), signed, ownResolver(t, pub))
	require.NoError(t, err)
	f, err := ReadFacts(signed)
	require.NoError(t, err)
	require.Equal(t, evidenceInput().Evidence, f.Evidence)

	var m map[string]any
	require.NoError(t, json.Unmarshal(signed, &m))
	m["evidence"].([]any)[0].(map[string]any)["name"] = "Someone else's project"
	_, err = Verify(context.Background(), mustJSON(t, m), ownResolver(t, pub))
	require.Error(t, err, "evidence is covered by the proof")
}
