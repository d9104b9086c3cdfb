package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
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
	Criteria          []db.Criterion    `json:"criteria"`
	CategoryCode      string            `json:"categoryCode"`
	PublishStatusCode string            `json:"publishStatusCode"`
	ExpirationPolicy  *expirationPolicy `json:"expirationPolicy"`
	Image             imageResponse     `json:"image"`
	SignatureImage    *imageResponse    `json:"signatureImage"`
	Skills            []db.Skill        `json:"skills"`
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

// badges is the shared scaffold's view of badges (linked.go).
func (h *handler) badges() linked[db.Badge, badgeResponse] {
	return linked[db.Badge, badgeResponse]{param: "badgeId", code: codeBadgeNotFound, noun: "badge",
		links: programIDsOf, setLinks: linkBadge, response: h.toBadgeResponse,
		id: func(b db.Badge) uuid.UUID { return b.ID },
		get: func(ctx context.Context, org, id uuid.UUID) (db.Badge, error) {
			return h.db.GetBadge(ctx, db.GetBadgeParams{OrgID: org, ID: id})
		}}
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
	return checkAllLive(programIDs, func() (int64, error) {
		return q.CountLivePrograms(ctx, db.CountLiveProgramsParams{OrgID: org, Ids: programIDs})
	}, newError(codeProgramNotFound, "one or more programIds do not name a program of this organization"))
}

func (h *handler) createBadge(w http.ResponseWriter, r *http.Request) error {
	required := func(in badgeInput) map[string]bool {
		return map[string]bool{"name": in.name.Set, "description": in.description.Set, "criteria": in.criteria.Set,
			"categoryCode": in.category.Set, "imageId": in.imageID.Set, "skills": in.skills.Set}
	}
	return createLinked(h, w, r, h.badges(), readBadgeInput, required, badgeInput.links,
		func(ctx context.Context, q *db.Queries, org uuid.UUID, in badgeInput) (db.Badge, error) {
			b := db.Badge{ID: uuid.New(), OrgID: org}
			if err := in.apply(&b); err != nil {
				return b, err
			}
			if err := h.checkBadge(ctx, q, org, b, in.programIDs.Val); err != nil {
				return b, err
			}
			out, err := q.CreateBadge(ctx, db.CreateBadgeParams{ID: b.ID, OrgID: org, Name: b.Name,
				Description: b.Description, Criteria: b.Criteria, CategoryCode: b.CategoryCode,
				ExpirationKind: b.ExpirationKind, ExpirationMonths: b.ExpirationMonths,
				ExpirationFixedAt: b.ExpirationFixedAt, ImageID: b.ImageID, SignatureImageID: b.SignatureImageID,
				Skills: b.Skills})
			if err != nil || !in.reminders.Set || len(in.reminders.Val) == 0 {
				return out, err
			}
			return q.SetBadgeExpiryReminders(ctx, db.SetBadgeExpiryRemindersParams{OrgID: org, ID: b.ID, Days: in.reminders.Val})
		})
}

// updateBadge applies the eight PATCH rules: the reader enforces types, nulls and the skill field sets; apply
// keeps omitted fields; the merged badge is checked as a whole before it is written.
func (h *handler) updateBadge(w http.ResponseWriter, r *http.Request) error {
	lock := func(ctx context.Context, q *db.Queries, org, id uuid.UUID) (db.Badge, error) {
		return q.GetBadgeForUpdate(ctx, db.GetBadgeForUpdateParams{OrgID: org, ID: id})
	}
	return updateLinked(h, w, r, h.badges(), readBadgeInput, badgeInput.links, lock,
		func(ctx context.Context, q *db.Queries, org uuid.UUID, in badgeInput, b db.Badge) (db.Badge, error) {
			if err := in.apply(&b); err != nil {
				return b, err
			}
			if err := h.checkBadge(ctx, q, org, b, in.programIDs.Val); err != nil {
				return b, err
			}
			out, err := q.UpdateBadge(ctx, db.UpdateBadgeParams{OrgID: org, ID: b.ID, Name: b.Name,
				Description: b.Description, Criteria: b.Criteria, CategoryCode: b.CategoryCode,
				ExpirationKind: b.ExpirationKind, ExpirationMonths: b.ExpirationMonths,
				ExpirationFixedAt: b.ExpirationFixedAt, ImageID: b.ImageID, SignatureImageID: b.SignatureImageID,
				Skills: b.Skills})
			if err != nil || !in.reminders.Set {
				return out, err
			}
			// A policy edit reschedules what has not been sent: the sweep reads the policy at each round.
			return q.SetBadgeExpiryReminders(ctx, db.SetBadgeExpiryRemindersParams{OrgID: org, ID: b.ID, Days: in.reminders.Val})
		})
}

func (h *handler) getBadge(w http.ResponseWriter, r *http.Request) error {
	return getLinked(h, w, r, h.badges())
}

func (h *handler) listBadges(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	lq, err := parseListQuery(q, badgeCategories)
	if err != nil {
		return err
	}
	programID, err := queryUUID(q, "programId")
	if err != nil {
		return err
	}
	return listLinked(h, w, r, h.badges(), lq, h.db.CountBadges, h.db.ListBadges,
		func(org uuid.UUID, a listArgs) (db.CountBadgesParams, db.ListBadgesParams) {
			return db.CountBadgesParams{OrgID: org, CategoryCode: lq.category, ProgramID: programID},
				db.ListBadgesParams{OrgID: org, CategoryCode: lq.category, ProgramID: programID, Sort1: a.sort1,
					Desc1: a.desc1, Sort2: a.sort2, Desc2: a.desc2, Sort3: a.sort3, Desc3: a.desc3, IDDesc: a.idDesc,
					Lim: a.lim, Off: a.off}
		})
}

// deleteBadge removes the badge and its program links; issued assertions keep their own copy of the badge.
func (h *handler) deleteBadge(w http.ResponseWriter, r *http.Request) error {
	return deleteLinked(h, w, r, h.badges(),
		func(ctx context.Context, q *db.Queries, org, id uuid.UUID) (int64, error) {
			return q.DeleteBadge(ctx, db.DeleteBadgeParams{OrgID: org, ID: id})
		})
}
