package api

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// Badge enums and limits of the contract ("Badge" table) plus our caps on list sizes.
var (
	criteriaCategories = []string{"PARTICIPATION_ATTENDANCE", "COMPLETION", "SCORE_GRADE", "SUBMISSION_APPROVAL",
		"RECORD_ACHIEVEMENT", "AWARD_SELECTION", "OTHER"}
	badgeCategories = []string{"COMPLETION", "AWARD", "CERTIFICATION", "CURRICULAR", "EXTRACURRICULAR", "SEMINAR", "OTHER"}
	skillLanguages  = []string{"en", "ko"}
)

const (
	maxCriteria        = 20
	maxSkills          = 50
	maxCriterionLen    = 2000
	maxExpiryMonths    = 1200
	skillCustom        = "CUSTOM"
	skillService       = "SERVICE_SKILL"
	expiryRelative     = "RELATIVE"
	expiryFixed        = "FIXED"
	maxServiceSkillLen = 100
)

// badgeInput is a create or update body; each field may be absent (PATCH rule 1).
type badgeInput struct {
	name, description, category opt[string]
	criteria                    opt[[]db.Criterion]
	skills                      opt[[]db.Skill]
	policy                      opt[expiryPolicy]
	imageID, signatureImageID   opt[uuid.UUID]
	programIDs                  opt[[]uuid.UUID]
	reminders                   opt[[]int32] // v3 only (badge_reminders.go)
}

// expiryPolicy is the stored form of an expiration policy.
type expiryPolicy struct {
	kind    string
	months  *int32
	fixedAt *time.Time
}

func readBadgeInput(o *object) badgeInput {
	allowed := []string{"name", "description", "criteria", "categoryCode", "expirationPolicy", "imageId",
		"signatureImageId", "skills", "programIds"}
	if o.v == v3 {
		allowed = append(allowed, "expiryReminders")
	}
	o.only(allowed...)
	in := badgeInput{
		name:             o.text("name", textRule{max: maxNameLen}),
		description:      o.text("description", textRule{max: maxDescriptionLen, multiline: true}),
		category:         o.enum("categoryCode", false, badgeCategories...),
		imageID:          o.id("imageId", false),
		signatureImageID: o.id("signatureImageId", true),
		programIDs:       o.ids("programIds", maxLinkedIDs),
		policy:           readExpiry(o),
	}
	if o.v == v3 {
		in.reminders = readExpiryReminders(o)
	}
	var crit []db.Criterion
	if o.objects("criteria", 1, maxCriteria, func(i int, c *object) {
		c.only("category", "value")
		cat := c.enum("category", false, criteriaCategories...)
		val := c.text("value", textRule{max: maxCriterionLen, multiline: true})
		requireFields(c, map[string]bool{"category": cat.Set, "value": val.Set})
		crit = append(crit, db.Criterion{Category: cat.Val, Value: val.Val})
	}) {
		in.criteria = opt[[]db.Criterion]{Set: true, Val: crit}
	}
	var skills []db.Skill
	if o.objects("skills", 1, maxSkills, func(i int, s *object) {
		skills = append(skills, readSkill(s))
	}) {
		in.skills = opt[[]db.Skill]{Set: true, Val: skills}
	}
	return in
}

// readSkill enforces PATCH rule 7: CUSTOM sends only skillName; SERVICE_SKILL only serviceSkillId and language.
// An explicit null for a field of the other kind counts as not sent.
func readSkill(s *object) db.Skill {
	s.only("sourceType", "skillName", "serviceSkillId", "language")
	kind := s.enum("sourceType", false, skillCustom, skillService)
	if !kind.Set {
		requireFields(s, map[string]bool{"sourceType": false})
		return db.Skill{}
	}
	forbid := func(kind string, names ...string) {
		for _, n := range names {
			if s.has(n) && !s.null(n) {
				s.fail(n, "must not be sent with sourceType "+kind)
			}
		}
	}
	out := db.Skill{SourceType: kind.Val}
	switch kind.Val {
	case skillCustom:
		forbid(skillCustom, "serviceSkillId", "language")
		name := s.text("skillName", textRule{max: maxNameLen})
		requireFields(s, map[string]bool{"skillName": name.Set})
		out.SkillName = &name.Val
	case skillService:
		forbid(skillService, "skillName")
		id := s.text("serviceSkillId", textRule{max: maxServiceSkillLen})
		lang := s.enum("language", false, skillLanguages...)
		requireFields(s, map[string]bool{"serviceSkillId": id.Set, "language": lang.Set})
		out.ServiceSkillID, out.Language = &id.Val, &lang.Val
	}
	return out
}

// readExpiry reads expirationPolicy: null clears it (PATCH rule 2); {relativeExpirationMonths: N} is the
// contract's relative policy; {type: FIXED, fixedExpiredAt: …} is our shape of the FIXED kind the contract names.
func readExpiry(o *object) opt[expiryPolicy] {
	p, f := o.object("expirationPolicy", true)
	if p == nil {
		return opt[expiryPolicy]{Set: f.Set, Null: f.Null}
	}
	p.only("type", "relativeExpirationMonths", "fixedExpiredAt")
	kind := p.enum("type", false, expiryRelative, expiryFixed)
	months := p.integer("relativeExpirationMonths", true, 1, maxExpiryMonths)
	fixed := p.datetime("fixedExpiredAt", true)
	k := expiryRelative
	if kind.Set {
		k = kind.Val
	}
	switch {
	case k == expiryRelative && (!months.Set || months.Null):
		if !p.has("relativeExpirationMonths") || months.Null {
			p.fail("relativeExpirationMonths", "is required for a relative policy")
		}
		return opt[expiryPolicy]{}
	case k == expiryRelative && fixed.Set && !fixed.Null:
		p.fail("fixedExpiredAt", "must not be sent with a relative policy")
		return opt[expiryPolicy]{}
	case k == expiryFixed && (!fixed.Set || fixed.Null):
		if !p.has("fixedExpiredAt") || fixed.Null {
			p.fail("fixedExpiredAt", "is required when type is FIXED")
		}
		return opt[expiryPolicy]{}
	case k == expiryFixed && months.Set && !months.Null:
		p.fail("relativeExpirationMonths", "must not be sent when type is FIXED")
		return opt[expiryPolicy]{}
	case k == expiryRelative:
		m := int32(months.Val)
		return opt[expiryPolicy]{Set: true, Val: expiryPolicy{kind: k, months: &m}}
	default:
		t := fixed.Val
		return opt[expiryPolicy]{Set: true, Val: expiryPolicy{kind: k, fixedAt: &t}}
	}
}

// links are the programs the body links the badge to.
func (in badgeInput) links() opt[[]uuid.UUID] { return in.programIDs }

// apply merges the input into b: omitted keeps, null clears (only nullable fields accept null).
func (in badgeInput) apply(b *db.Badge) error {
	setVal(&b.Name, in.name)
	setVal(&b.Description, in.description)
	setVal(&b.CategoryCode, in.category)
	setVal(&b.ImageID, in.imageID)
	setPtr(&b.SignatureImageID, in.signatureImageID)
	if in.policy.Set {
		b.ExpirationKind, b.ExpirationMonths, b.ExpirationFixedAt = nil, nil, nil
		if !in.policy.Null {
			kind := in.policy.Val.kind
			b.ExpirationKind, b.ExpirationMonths, b.ExpirationFixedAt = &kind, in.policy.Val.months, in.policy.Val.fixedAt
		}
	}
	var err error
	if in.criteria.Set {
		if b.Criteria, err = json.Marshal(in.criteria.Val); err != nil {
			return fmt.Errorf("encode criteria: %w", err)
		}
	}
	if in.skills.Set {
		if b.Skills, err = json.Marshal(in.skills.Val); err != nil {
			return fmt.Errorf("encode skills: %w", err)
		}
	}
	return nil
}
