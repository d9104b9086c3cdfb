package page

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/credential"
)

func TestMediaID(t *testing.T) {
	const base = "https://badged.example/media/"
	id := uuid.New()
	for url, want := range map[string]uuid.UUID{
		base + id.String() + "/original":                                 id,
		base + id.String() + "/medium":                                   id,
		base + id.String():                                               uuid.Nil, // no variant
		base + id.String() + "/":                                         uuid.Nil,
		base + id.String() + "/original/x":                               uuid.Nil,
		base + id.String() + "/original?v=2":                             uuid.Nil,
		base + "not-an-id/original":                                      uuid.Nil,
		"https://elsewhere.example/media/" + id.String() + "/original":   uuid.Nil, // not this service's
		"https://badged.example.evil/media/" + id.String() + "/original": uuid.Nil,
		"": uuid.Nil,
	} {
		require.Equal(t, want, mediaID(url, base), url)
	}
}

// TestShownFactsOf_Achievement: a verified credential's achievement (description, criteria as narrative lines,
// skills, image) is what is shown, whatever the badge row says now; without one, the row is, with its categories.
func TestShownFactsOf_Achievement(t *testing.T) {
	now, img, signedImg := time.Now(), uuid.New(), uuid.New()
	row := db.GetBadgePageRow{Assertion: db.Assertion{RecipientName: "Kim", IssuedAt: now, Mode: "live"}, BadgeName: "Now",
		BadgeDescription: "current", BadgeCriteria: []byte(`[{"category":"COMPLETION","value":"current criterion"}]`),
		BadgeSkills: []byte(`[{"sourceType":"CUSTOM","skillName":"current skill"}]`), BadgeImageID: img, OrgName: "Acme"}
	f := shownFactsOf(row, nil, "https://b.example/media/")
	require.False(t, f.Signed)
	require.Equal(t, "current", f.Description)
	require.Equal(t, []db.Criterion{{Category: "COMPLETION", Value: "current criterion"}}, f.Criteria)
	require.Equal(t, []string{"current skill"}, f.Skills)
	require.Equal(t, img, f.Image)

	f = shownFactsOf(row, &credential.Facts{AchievementName: "Then", AchievementDescription: "signed",
		AchievementCriteria: "first\n\n second \n", AchievementSkills: []string{"signed skill"}, ValidFrom: now,
		AchievementImage: "https://b.example/media/" + signedImg.String() + "/original"}, "https://b.example/media/")
	require.True(t, f.Signed)
	require.Equal(t, "Then", f.Badge)
	require.Equal(t, "signed", f.Description)
	require.Equal(t, []db.Criterion{{Value: "first"}, {Value: "second"}}, f.Criteria)
	require.Equal(t, []string{"signed skill"}, f.Skills)
	require.Equal(t, signedImg, f.Image)

	f = shownFactsOf(row, &credential.Facts{ValidFrom: now}, "https://b.example/media/")
	require.Empty(t, f.Description, "signed without: none, not the row's")
	require.Empty(t, f.Criteria)
	require.Empty(t, f.Skills)
	require.Equal(t, uuid.Nil, f.Image)
}
