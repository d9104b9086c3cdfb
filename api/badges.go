package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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

type expirationPolicy struct {
	Type                     string  `json:"type"`
	RelativeExpirationMonths *int32  `json:"relativeExpirationMonths"`
	FixedExpiredAt           *string `json:"fixedExpiredAt"`
}

type badgeResponse struct {
	ID                string            `json:"id"`
	Name              string            `json:"name"`
	Description       string            `json:"description"`
	Criteria          []db.Criterion       `json:"criteria"`
	CategoryCode      string            `json:"categoryCode"`
	PublishStatusCode string            `json:"publishStatusCode"`
	ExpirationPolicy  *expirationPolicy `json:"expirationPolicy"`
	Image             imageResponse     `json:"image"`
	SignatureImage    *imageResponse    `json:"signatureImage"`
	Skills            []db.Skill           `json:"skills"`
	ProgramIDs        []string          `json:"programIds"`
	ExpiryReminders   *[]int32          `json:"expiryReminders,omitempty"` // v3 only
	CreatedAt         string            `json:"createdAt"`
	UpdatedAt         string            `json:"updatedAt"`
}

func (h *handler) toBadgeResponse(v version, b db.Badge, programIDs []uuid.UUID) badgeResponse {
	var crit []db.Criterion
	var skills []db.Skill
	_ = json.Unmarshal(b.Criteria, &crit) // written by this package from the same types
	_ = json.Unmarshal(b.Skills, &skills)
	var policy *expirationPolicy
	if b.ExpirationKind != nil {
		policy = &expirationPolicy{Type: *b.ExpirationKind, RelativeExpirationMonths: b.ExpirationMonths,
			FixedExpiredAt: v.formatTimePtr(b.ExpirationFixedAt, h.loc)}
	}
	return badgeResponse{
		ID: b.ID.String(), Name: b.Name, Description: b.Description, Criteria: crit, CategoryCode: b.CategoryCode,
		PublishStatusCode: b.PublishStatus, ExpirationPolicy: policy, Image: h.image(b.ImageID),
		SignatureImage: h.imagePtr(b.SignatureImageID), Skills: skills, ProgramIDs: idStrings(programIDs),
		ExpiryReminders: expiryRemindersOf(v, b.ExpiryReminders),
		CreatedAt:       v.formatTime(b.CreatedAt, h.loc), UpdatedAt: v.formatTime(b.UpdatedAt, h.loc),
	}
}

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

func (h *handler) checkBadge(ctx context.Context, q *db.Queries, org uuid.UUID, b db.Badge, programIDs []uuid.UUID) error {
	var fields []fieldError
	for _, img := range []struct {
		field string
		id    *uuid.UUID
	}{{"imageId", &b.ImageID}, {"signatureImageId", b.SignatureImageID}} {
		f, err := h.checkImage(ctx, q, org, img.field, img.id)
		if err != nil {
			return err
		}
		if f != nil {
			fields = append(fields, *f)
		}
	}
	if len(fields) > 0 {
		return fieldsError(fields)
	}
	if len(programIDs) == 0 {
		return nil
	}
	n, err := q.CountLivePrograms(ctx, db.CountLiveProgramsParams{OrgID: org, Ids: programIDs})
	if err != nil {
		return err
	}
	if int(n) != len(programIDs) {
		return newError(codeProgramNotFound, "one or more programIds do not name a program of this organization")
	}
	return nil
}

func (h *handler) createBadge(w http.ResponseWriter, r *http.Request) error {
	o, err := h.decodeBody(w, r, maxJSONBody)
	if err != nil {
		return err
	}
	in := readBadgeInput(o)
	requireFields(o, map[string]bool{"name": in.name.Set, "description": in.description.Set,
		"criteria": in.criteria.Set, "categoryCode": in.category.Set, "imageId": in.imageID.Set, "skills": in.skills.Set})
	if err := o.err(); err != nil {
		return err
	}
	org, v := principalOf(r.Context()).OrgID, versionOf(r.Context())
	b := db.Badge{ID: uuid.New(), OrgID: org}
	if err := in.apply(&b); err != nil {
		return err
	}
	programIDs := in.programIDs.Val
	var out db.Badge
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		if err := h.checkBadge(r.Context(), q, org, b, programIDs); err != nil {
			return err
		}
		var err error
		out, err = q.CreateBadge(r.Context(), db.CreateBadgeParams{ID: b.ID, OrgID: org, Name: b.Name,
			Description: b.Description, Criteria: b.Criteria, CategoryCode: b.CategoryCode,
			ExpirationKind: b.ExpirationKind, ExpirationMonths: b.ExpirationMonths,
			ExpirationFixedAt: b.ExpirationFixedAt, ImageID: b.ImageID, SignatureImageID: b.SignatureImageID,
			Skills: b.Skills})
		if err != nil {
			return err
		}
		if in.reminders.Set && len(in.reminders.Val) > 0 {
			if out, err = q.SetBadgeExpiryReminders(r.Context(), db.SetBadgeExpiryRemindersParams{OrgID: org, ID: b.ID,
				Days: in.reminders.Val}); err != nil {
				return err
			}
		}
		return linkBadge(r.Context(), q, org, b.ID, programIDs)
	})
	if err != nil {
		return err
	}
	h.ok(w, h.toBadgeResponse(v, out, programIDs))
	return nil
}

// linkBadge makes the badge's program links exactly programIDs; programs see the same rows as badgeIds.
func linkBadge(ctx context.Context, q *db.Queries, org, badge uuid.UUID, programIDs []uuid.UUID) error {
	if err := q.UnlinkBadgePrograms(ctx, db.UnlinkBadgeProgramsParams{OrgID: org, BadgeID: badge, Keep: nonNil(programIDs)}); err != nil {
		return err
	}
	for _, p := range programIDs {
		if err := q.LinkProgramBadge(ctx, db.LinkProgramBadgeParams{OrgID: org, ProgramID: p, BadgeID: badge}); err != nil {
			return err
		}
	}
	return nil
}

func programIDsOf(ctx context.Context, q *db.Queries, org uuid.UUID, badges ...uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
	rows, err := q.ListProgramIDsOfBadges(ctx, db.ListProgramIDsOfBadgesParams{OrgID: org, BadgeIds: badges})
	if err != nil {
		return nil, err
	}
	return groupLinks(rows, func(l db.ListProgramIDsOfBadgesRow) (uuid.UUID, uuid.UUID) { return l.BadgeID, l.ProgramID }), nil
}

func (h *handler) getBadge(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "badgeId")
	if err != nil {
		return err
	}
	org, v := principalOf(r.Context()).OrgID, versionOf(r.Context())
	b, err := h.db.GetBadge(r.Context(), db.GetBadgeParams{OrgID: org, ID: id.UUID})
	if db.IsNotFound(err) {
		err = newError(codeBadgeNotFound, "badge %s not found", id)
	}
	if err != nil {
		return err
	}
	links, err := programIDsOf(r.Context(), h.db.Queries, org, b.ID)
	if err != nil {
		return err
	}
	h.ok(w, h.toBadgeResponse(v, b, links[b.ID]))
	return nil
}

func (h *handler) listBadges(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, err := parsePage(q)
	if err != nil {
		return err
	}
	order, err := parseSort(q, "createdAt", "updatedAt", "name")
	if err != nil {
		return err
	}
	category, err := queryEnum(q, "categoryCode", badgeCategories...)
	if err != nil {
		return err
	}
	programID, err := queryUUID(q, "programId")
	if err != nil {
		return err
	}
	org, v := principalOf(r.Context()).OrgID, versionOf(r.Context())
	total, err := h.db.CountBadges(r.Context(), db.CountBadgesParams{OrgID: org, CategoryCode: category, ProgramID: programID})
	if err != nil {
		return err
	}
	params := db.ListBadgesParams{OrgID: org, CategoryCode: category, ProgramID: programID, IDDesc: order.idDesc(),
		Lim: int32(page.size), Off: page.offset()}
	params.Sort1, params.Desc1 = order.at(0)
	params.Sort2, params.Desc2 = order.at(1)
	params.Sort3, params.Desc3 = order.at(2)
	rows, err := h.db.ListBadges(r.Context(), params)
	if err != nil {
		return err
	}
	items, err := withLinks(rows, func(b db.Badge) uuid.UUID { return b.ID },
		func(ids []uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
			return programIDsOf(r.Context(), h.db.Queries, org, ids...)
		},
		func(b db.Badge, programs []uuid.UUID) badgeResponse { return h.toBadgeResponse(v, b, programs) })
	if err != nil {
		return err
	}
	okList(h, w, page, total, items)
	return nil
}

// updateBadge applies the eight PATCH rules: the reader enforces types, nulls and the skill field sets; apply
// keeps omitted fields; the merged badge is checked as a whole before it is written.
func (h *handler) updateBadge(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "badgeId")
	if err != nil {
		return err
	}
	o, err := h.decodeBody(w, r, maxJSONBody)
	if err != nil {
		return err
	}
	in := readBadgeInput(o)
	if err := o.err(); err != nil {
		return err
	}
	org, v := principalOf(r.Context()).OrgID, versionOf(r.Context())
	var out db.Badge
	var programIDs []uuid.UUID
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		b, err := q.GetBadgeForUpdate(r.Context(), db.GetBadgeForUpdateParams{OrgID: org, ID: id.UUID})
		if db.IsNotFound(err) {
			return newError(codeBadgeNotFound, "badge %s not found", id)
		}
		if err != nil {
			return err
		}
		if err := in.apply(&b); err != nil {
			return err
		}
		if err := h.checkBadge(r.Context(), q, org, b, in.programIDs.Val); err != nil {
			return err
		}
		out, err = q.UpdateBadge(r.Context(), db.UpdateBadgeParams{OrgID: org, ID: b.ID, Name: b.Name,
			Description: b.Description, Criteria: b.Criteria, CategoryCode: b.CategoryCode,
			ExpirationKind: b.ExpirationKind, ExpirationMonths: b.ExpirationMonths,
			ExpirationFixedAt: b.ExpirationFixedAt, ImageID: b.ImageID, SignatureImageID: b.SignatureImageID,
			Skills: b.Skills})
		if err != nil {
			return err
		}
		if in.reminders.Set {
			// A policy edit reschedules what has not been sent: the sweep reads the policy at each round.
			if out, err = q.SetBadgeExpiryReminders(r.Context(), db.SetBadgeExpiryRemindersParams{OrgID: org, ID: b.ID,
				Days: in.reminders.Val}); err != nil {
				return err
			}
		}
		if in.programIDs.Set {
			programIDs = in.programIDs.Val
			return linkBadge(r.Context(), q, org, b.ID, programIDs)
		}
		links, err := programIDsOf(r.Context(), q, org, b.ID)
		programIDs = links[b.ID]
		return err
	})
	if err != nil {
		return err
	}
	h.ok(w, h.toBadgeResponse(v, out, programIDs))
	return nil
}

// deleteBadge removes the badge and its program links; issued assertions keep their own copy of the badge.
func (h *handler) deleteBadge(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "badgeId")
	if err != nil {
		return err
	}
	org := principalOf(r.Context()).OrgID
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		n, err := q.DeleteBadge(r.Context(), db.DeleteBadgeParams{OrgID: org, ID: id.UUID})
		if err != nil {
			return err
		}
		if n == 0 {
			return newError(codeBadgeNotFound, "badge %s not found", id)
		}
		return q.UnlinkBadgePrograms(r.Context(), db.UnlinkBadgeProgramsParams{OrgID: org, BadgeID: id.UUID, Keep: []uuid.UUID{}})
	})
	if err != nil {
		return err
	}
	h.ok(w, deletedResponse{ID: id.String(), Deleted: true})
	return nil
}
