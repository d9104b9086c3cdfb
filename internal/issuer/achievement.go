package issuer

import (
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/badged/badged/internal/credential"
)

// Badge is what of a badge its credentials sign: the columns of the badges row.
type Badge struct {
	ID, ImageID       uuid.UUID
	Name, Description string
	Criteria, Skills  []byte // the stored JSON of badges.criteria and badges.skills
}

// Achievement is the OB 3.0 Achievement of a badge as the sign step embeds it in every credential, and as its id
// answers a machine (the badge page, package catalog): one mapping, so the two never differ.
func (s *Service) Achievement(b Badge) credential.Achievement {
	return credential.Achievement{
		ID: s.AchievementID(b.ID), Name: b.Name, Description: b.Description,
		CriteriaNarrative: CriteriaNarrative(b.Criteria),
		ImageURL:          s.BaseURL + "/media/" + b.ImageID.String() + "/original",
		Skills:            SignedSkills(b.Skills),
	}
}

// CriteriaNarrative is the badge's criteria as a credential states them: each criterion's value, one a line (the
// categories are the badge's records, not signed).
func CriteriaNarrative(raw []byte) string {
	var crit []struct{ Category, Value string }
	if err := json.Unmarshal(raw, &crit); err != nil || len(crit) == 0 {
		return ""
	}
	lines := make([]string, len(crit))
	for i, c := range crit {
		lines[i] = c.Value
	}
	return strings.Join(lines, "\n")
}

// SignedSkills are the badge's skills as a credential states them: a named skill by its name, a service skill by
// its id in the "badged service skills" framework.
func SignedSkills(raw []byte) []credential.Skill {
	var in []struct {
		SourceType     string  `json:"sourceType"`
		SkillName      *string `json:"skillName"`
		ServiceSkillID *string `json:"serviceSkillId"`
		Language       *string `json:"language"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil
	}
	out := make([]credential.Skill, 0, len(in))
	for _, s := range in {
		if s.SkillName != nil {
			out = append(out, credential.Skill{Name: *s.SkillName})
		} else if s.ServiceSkillID != nil {
			out = append(out, credential.Skill{Name: *s.ServiceSkillID, Code: *s.ServiceSkillID, Framework: "badged service skills"})
		}
	}
	return out
}
