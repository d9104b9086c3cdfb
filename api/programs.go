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
		links: badgeIDsOf, unlink: linkProgram, response: h.toProgramResponse,
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
	if len(ids) == 0 {
		return nil
	}
	n, err := q.CountLiveBadges(ctx, db.CountLiveBadgesParams{OrgID: org, Ids: ids})
	if err != nil {
		return err
	}
	if int(n) != len(ids) {
		return newError(codeBadgeNotFound, "one or more badgeIds do not name a badge of this organization")
	}
	return nil
}

func (h *handler) createProgram(w http.ResponseWriter, r *http.Request) error {
	o, err := h.decodeBody(w, r, maxJSONBody)
	if err != nil {
		return err
	}
	in := readProgramInput(o)
	requireFields(o, map[string]bool{"name": in.name.Set, "categoryCode": in.category.Set, "imageId": in.imageID.Set})
	if err := o.err(); err != nil {
		return err
	}
	org, v := principalOf(r.Context()).OrgID, versionOf(r.Context())
	p := db.Program{ID: uuid.New(), OrgID: org}
	in.apply(&p)
	badgeIDs := in.badgeIDs.Val
	var out db.Program
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		if err := h.checkProgram(r.Context(), q, org, p, badgeIDs); err != nil {
			return err
		}
		var err error
		out, err = q.CreateProgram(r.Context(), db.CreateProgramParams{ID: p.ID, OrgID: org, Name: p.Name,
			Description: p.Description, Url: p.Url, CategoryCode: p.CategoryCode, StartsAt: p.StartsAt,
			EndsAt: p.EndsAt, VisibleOnOrgPage: p.VisibleOnOrgPage, ImageID: p.ImageID})
		if err != nil {
			return err
		}
		return linkProgram(r.Context(), q, org, p.ID, badgeIDs)
	})
	if err != nil {
		return err
	}
	h.ok(w, h.toProgramResponse(v, out, badgeIDs))
	return nil
}

func (h *handler) updateProgram(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "programId")
	if err != nil {
		return err
	}
	o, err := h.decodeBody(w, r, maxJSONBody)
	if err != nil {
		return err
	}
	in := readProgramInput(o)
	if err := o.err(); err != nil {
		return err
	}
	org, v := principalOf(r.Context()).OrgID, versionOf(r.Context())
	var out db.Program
	var badgeIDs []uuid.UUID
	err = h.db.InTx(r.Context(), func(q *db.Queries) error {
		p, err := q.GetProgramForUpdate(r.Context(), db.GetProgramForUpdateParams{OrgID: org, ID: id.UUID})
		if db.IsNotFound(err) {
			return newError(codeProgramNotFound, "program %s not found", id)
		}
		if err != nil {
			return err
		}
		in.apply(&p)
		if in.badgeIDs.Set {
			badgeIDs = in.badgeIDs.Val
		} else {
			links, err := badgeIDsOf(r.Context(), q, org, p.ID)
			if err != nil {
				return err
			}
			badgeIDs = links[p.ID]
		}
		if err := h.checkProgram(r.Context(), q, org, p, in.badgeIDs.Val); err != nil {
			return err
		}
		out, err = q.UpdateProgram(r.Context(), db.UpdateProgramParams{OrgID: org, ID: p.ID, Name: p.Name,
			Description: p.Description, Url: p.Url, CategoryCode: p.CategoryCode, StartsAt: p.StartsAt,
			EndsAt: p.EndsAt, VisibleOnOrgPage: p.VisibleOnOrgPage, ImageID: p.ImageID})
		if err != nil {
			return err
		}
		if in.badgeIDs.Set {
			return linkProgram(r.Context(), q, org, p.ID, badgeIDs)
		}
		return nil
	})
	if err != nil {
		return err
	}
	h.ok(w, h.toProgramResponse(v, out, badgeIDs))
	return nil
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
