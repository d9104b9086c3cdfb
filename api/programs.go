package api

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// Program field limits (the contract leaves them open; README "Limits").
const (
	maxNameLen        = 200
	maxDescriptionLen = 5000
	maxLinkedIDs      = 100
)

// programCategories are the program categories the contract gives.
var programCategories = []string{"EDUCATION"}

type programResponse struct {
	ID                          string        `json:"id"`
	Name                        string        `json:"name"`
	Description                 *string       `json:"description"`
	URL                         *string       `json:"url"`
	CategoryCode                string        `json:"categoryCode"`
	StartsAt                    *string       `json:"startsAt"`
	EndsAt                      *string       `json:"endsAt"`
	PublishStatusCode           string        `json:"publishStatusCode"`
	IsVisibleAtOrganizationPage bool          `json:"isVisibleAtOrganizationPage"`
	Image                       imageResponse `json:"image"`
	BadgeIDs                    []string      `json:"badgeIds"`
	CreatedAt                   string        `json:"createdAt"`
	UpdatedAt                   string        `json:"updatedAt"`
}

func (h *handler) toProgramResponse(v version, p db.Program, badgeIDs []uuid.UUID) programResponse {
	return programResponse{
		ID: p.ID.String(), Name: p.Name, Description: p.Description, URL: p.Url, CategoryCode: p.CategoryCode,
		StartsAt: v.formatTimePtr(p.StartsAt, h.loc), EndsAt: v.formatTimePtr(p.EndsAt, h.loc),
		PublishStatusCode: p.PublishStatus, IsVisibleAtOrganizationPage: p.VisibleOnOrgPage,
		Image: h.image(p.ImageID), BadgeIDs: idStrings(badgeIDs),
		CreatedAt: v.formatTime(p.CreatedAt, h.loc), UpdatedAt: v.formatTime(p.UpdatedAt, h.loc),
	}
}

// programs is the shared scaffold's view of programs (linked.go).
func (h *handler) programs() linked[db.Program, programResponse] {
	return linked[db.Program, programResponse]{param: "programId", code: codeProgramNotFound, noun: "program",
		links: badgeIDsOf, setLinks: linkProgram, response: h.toProgramResponse,
		id: func(p db.Program) uuid.UUID { return p.ID },
		get: func(ctx context.Context, org, id uuid.UUID) (db.Program, error) {
			return h.db.GetProgram(ctx, db.GetProgramParams{OrgID: org, ID: id})
		}}
}

// programInput is a create or update body; each field may be absent.
type programInput struct {
	name, description, url, category opt[string]
	startsAt, endsAt                 opt[time.Time]
	visible                          opt[bool]
	imageID                          opt[uuid.UUID]
	badgeIDs                         opt[[]uuid.UUID]
}

func readProgramInput(o *object) programInput {
	o.only("name", "description", "url", "categoryCode", "startsAt", "endsAt", "isVisibleAtOrganizationPage",
		"imageId", "badgeIds")
	return programInput{
		name:        o.text("name", textRule{max: maxNameLen}),
		description: o.text("description", textRule{nullable: true, max: maxDescriptionLen, blankOK: true, multiline: true}),
		url:         o.url("url", true),
		category:    o.enum("categoryCode", false, programCategories...),
		startsAt:    o.datetime("startsAt", true),
		endsAt:      o.datetime("endsAt", true),
		visible:     o.boolean("isVisibleAtOrganizationPage"),
		imageID:     o.id("imageId", false),
		badgeIDs:    o.ids("badgeIds", maxLinkedIDs),
	}
}

// links are the badges the body links the program to.
func (in programInput) links() opt[[]uuid.UUID] { return in.badgeIDs }

// apply merges the input into p: an omitted field keeps its value, null clears it.
func (in programInput) apply(p *db.Program) {
	setVal(&p.Name, in.name)
	setPtr(&p.Description, in.description)
	setPtr(&p.Url, in.url)
	setVal(&p.CategoryCode, in.category)
	setPtr(&p.StartsAt, in.startsAt)
	setPtr(&p.EndsAt, in.endsAt)
	setVal(&p.VisibleOnOrgPage, in.visible)
	setVal(&p.ImageID, in.imageID)
}

// checkProgram validates the merged program against rules that span fields or need the database.
func (h *handler) checkProgram(ctx context.Context, q *db.Queries, org uuid.UUID, p db.Program, badgeIDs []uuid.UUID) error {
	var fields []fieldError
	if p.StartsAt != nil && p.EndsAt != nil && p.EndsAt.Before(*p.StartsAt) {
		fields = append(fields, fieldError{Field: "endsAt", Message: "must not be earlier than startsAt"})
	}
	f, err := h.checkImage(ctx, q, org, "imageId", &p.ImageID)
	if err != nil {
		return err
	}
	if f != nil {
		fields = append(fields, *f)
	}
	if len(fields) > 0 {
		return fieldsError(fields)
	}
	return checkBadgesExist(ctx, q, org, badgeIDs)
}

func checkBadgesExist(ctx context.Context, q *db.Queries, org uuid.UUID, ids []uuid.UUID) error {
	return checkAllLive(ids, func() (int64, error) {
		return q.CountLiveBadges(ctx, db.CountLiveBadgesParams{OrgID: org, Ids: ids})
	}, newError(codeBadgeNotFound, "one or more badgeIds do not name a badge of this organization"))
}

func (h *handler) createProgram(w http.ResponseWriter, r *http.Request) error {
	required := func(in programInput) map[string]bool {
		return map[string]bool{"name": in.name.Set, "categoryCode": in.category.Set, "imageId": in.imageID.Set}
	}
	return createLinked(h, w, r, h.programs(), readProgramInput, required, programInput.links,
		func(ctx context.Context, q *db.Queries, org uuid.UUID, in programInput) (db.Program, error) {
			p := db.Program{ID: uuid.New(), OrgID: org}
			in.apply(&p)
			if err := h.checkProgram(ctx, q, org, p, in.badgeIDs.Val); err != nil {
				return p, err
			}
			return q.CreateProgram(ctx, db.CreateProgramParams{ID: p.ID, OrgID: org, Name: p.Name,
				Description: p.Description, Url: p.Url, CategoryCode: p.CategoryCode, StartsAt: p.StartsAt,
				EndsAt: p.EndsAt, VisibleOnOrgPage: p.VisibleOnOrgPage, ImageID: p.ImageID})
		})
}

func (h *handler) updateProgram(w http.ResponseWriter, r *http.Request) error {
	lock := func(ctx context.Context, q *db.Queries, org, id uuid.UUID) (db.Program, error) {
		return q.GetProgramForUpdate(ctx, db.GetProgramForUpdateParams{OrgID: org, ID: id})
	}
	return updateLinked(h, w, r, h.programs(), readProgramInput, programInput.links, lock,
		func(ctx context.Context, q *db.Queries, org uuid.UUID, in programInput, p db.Program) (db.Program, error) {
			in.apply(&p)
			if err := h.checkProgram(ctx, q, org, p, in.badgeIDs.Val); err != nil {
				return p, err
			}
			return q.UpdateProgram(ctx, db.UpdateProgramParams{OrgID: org, ID: p.ID, Name: p.Name,
				Description: p.Description, Url: p.Url, CategoryCode: p.CategoryCode, StartsAt: p.StartsAt,
				EndsAt: p.EndsAt, VisibleOnOrgPage: p.VisibleOnOrgPage, ImageID: p.ImageID})
		})
}

func (h *handler) getProgram(w http.ResponseWriter, r *http.Request) error {
	return getLinked(h, w, r, h.programs())
}

func (h *handler) listPrograms(w http.ResponseWriter, r *http.Request) error {
	lq, err := parseListQuery(r.URL.Query(), programCategories)
	if err != nil {
		return err
	}
	return listLinked(h, w, r, h.programs(), lq, h.db.CountPrograms, h.db.ListPrograms,
		func(org uuid.UUID, a listArgs) (db.CountProgramsParams, db.ListProgramsParams) {
			return db.CountProgramsParams{OrgID: org, CategoryCode: lq.category},
				db.ListProgramsParams{OrgID: org, CategoryCode: lq.category, Sort1: a.sort1, Desc1: a.desc1,
					Sort2: a.sort2, Desc2: a.desc2, Sort3: a.sort3, Desc3: a.desc3, IDDesc: a.idDesc, Lim: a.lim,
					Off: a.off}
		})
}

// deleteProgram removes the program and its badge links. Assertions issued under it keep their copy of the name.
func (h *handler) deleteProgram(w http.ResponseWriter, r *http.Request) error {
	return deleteLinked(h, w, r, h.programs(),
		func(ctx context.Context, q *db.Queries, org, id uuid.UUID) (int64, error) {
			return q.DeleteProgram(ctx, db.DeleteProgramParams{OrgID: org, ID: id})
		})
}
