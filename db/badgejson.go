package db

// Criterion is one entry of a badge's criteria (the JSON array in badges.criteria), stored in the shape the API
// answers it in; the badge page and the certificate read it back.
type Criterion struct {
	Category string `json:"category"`
	Value    string `json:"value"`
}

// Skill is one entry of a badge's skills (the JSON array in badges.skills), stored in the shape the API answers it
// in; the badge page reads it back.
type Skill struct {
	SourceType     string  `json:"sourceType"`
	SkillName      *string `json:"skillName"`
	ServiceSkillID *string `json:"serviceSkillId"`
	Language       *string `json:"language"`
}
