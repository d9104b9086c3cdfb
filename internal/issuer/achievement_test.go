package issuer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/badged/badged/internal/credential"
)

func TestCriteriaNarrative(t *testing.T) {
	cases := map[string]struct{ raw, want string }{
		"two lines":   {`[{"category":"COURSE","value":"Finish the course"},{"category":"EXAM","value":"Pass the exam"}]`, "Finish the course\nPass the exam"},
		"one":         {`[{"category":"ETC","value":"Attend"}]`, "Attend"},
		"empty list":  {`[]`, ""},
		"not json":    {`{`, ""},
		"not a list":  {`{"value":"x"}`, ""},
		"null":        {`null`, ""},
		"nil":         {``, ""},
		"no category": {`[{"value":"only value"}]`, "only value"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, c.want, CriteriaNarrative([]byte(c.raw)))
		})
	}
}

func TestSignedSkills(t *testing.T) {
	raw := `[{"sourceType":"CUSTOM","skillName":"Go"},
	         {"sourceType":"SERVICE","serviceSkillId":"SK-42"},
	         {"sourceType":"SERVICE","skillName":"Named","serviceSkillId":"SK-7","language":"ko"},
	         {"sourceType":"CUSTOM"}]`
	require.Equal(t, []credential.Skill{
		{Name: "Go"},
		{Name: "SK-42", Code: "SK-42", Framework: "badged service skills"},
		{Name: "Named"}, // a name wins over the service id
	}, SignedSkills([]byte(raw)))
	require.Empty(t, SignedSkills([]byte(`[]`)))
	require.Nil(t, SignedSkills([]byte(`{`)))
}
