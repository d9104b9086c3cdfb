package credential

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReadFacts: what the page and the certificate show is read back from the signed credential, the recipient's
// name only from a plain-text identifier of identityType "name".
func TestReadFacts(t *testing.T) {
	pub, priv := testKey(t)
	signed := mustSign(t, mustBuild(t, testInput()), priv, VerificationMethodID(testIssuer, pub))
	_, err := Verify(context.Background(), signed, ownResolver(t, pub))
	require.NoError(t, err)
	f, err := ReadFacts(signed)
	require.NoError(t, err)
	require.Equal(t, Facts{RecipientName: "김민수 (Minsu Kim)", AchievementName: "Teamwork", IssuerName: "예시 대학교",
		AchievementDescription: "Works well \"in\" teams.", AchievementCriteria: "Nominated by peers.\nReviewed by staff.",
		AchievementImage: "https://badges.example/img/77.png", AchievementSkills: []string{"Collaboration", "Leadership", "soft-skills"},
		ValidFrom: time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC), ValidUntil: time.Date(2027, 3, 1, 15, 0, 0, 0, time.UTC)}, f)

	// The achievement's image as a plain IRI, one tag, one alignment: the shapes OB 3.0 allows read the same.
	doc := mustBuild(t, testInput())
	ach := doc["credentialSubject"].(map[string]any)["achievement"].(map[string]any)
	ach["image"], ach["tag"], ach["alignment"] = "https://badges.example/img/78.png", "solo", map[string]any{"targetName": "One"}
	f, err = ReadFacts(mustJSON(t, doc))
	require.NoError(t, err)
	require.Equal(t, "https://badges.example/img/78.png", f.AchievementImage)
	require.Equal(t, []string{"One", "solo"}, f.AchievementSkills)

	// A credential signed before names were: only the hashed e-mail, no expiry.
	in := testInput()
	in.Recipient.Name, in.ValidUntil = "", time.Time{}
	f, err = ReadFacts(mustJSON(t, mustBuild(t, in)))
	require.NoError(t, err)
	require.Empty(t, f.RecipientName)
	require.True(t, f.ValidUntil.IsZero())

	// A hashed name is no name to show; nor is a name identifier without "hashed".
	doc = mustBuild(t, testInput())
	ids := doc["credentialSubject"].(map[string]any)["identifier"].([]any)
	ids[1].(map[string]any)["hashed"] = true
	f, err = ReadFacts(mustJSON(t, doc))
	require.NoError(t, err)
	require.Empty(t, f.RecipientName)
	delete(ids[1].(map[string]any), "hashed")
	f, _ = ReadFacts(mustJSON(t, doc))
	require.Empty(t, f.RecipientName)

	// 1EdTech's vector (VC 2.0, its own issuer and subject shapes) reads too.
	for _, v := range vectors(t) {
		f, err := ReadFacts(v.signed)
		require.NoError(t, err, v.name)
		require.False(t, f.ValidFrom.IsZero(), v.name)
	}

	for name, bad := range map[string]string{
		"not JSON":          `{`,
		"no validFrom":      `{"credentialSubject":{}}`,
		"bad validFrom":     `{"validFrom":"yesterday"}`,
		"bad validUntil":    `{"validFrom":"2025-03-01T09:30:00Z","validUntil":"soon"}`,
		"VC 1.1 bad expiry": `{"issuanceDate":"2025-03-01T09:30:00Z","expirationDate":"2025-13-01T00:00:00Z"}`,
	} {
		_, err := ReadFacts([]byte(bad))
		require.Error(t, err, name)
	}
}
