package api

import (
	"context"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
)

// withLinks builds the items of a listed page whose responses carry the ids of linked resources (a badge's
// programs, a program's badges): one query loads the links of every row, then each row becomes its item.
func withLinks[R, T any](rows []R, id func(R) uuid.UUID, links func(ids []uuid.UUID) (map[uuid.UUID][]uuid.UUID, error),
	item func(R, []uuid.UUID) T) ([]T, error) {
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = id(r)
	}
	linked, err := links(ids)
	if err != nil {
		return nil, err
	}
	items := make([]T, len(rows))
	for i, r := range rows {
		items[i] = item(r, linked[ids[i]])
	}
	return items, nil
}

// groupLinks turns link rows into the linked ids of each owner.
func groupLinks[L any](rows []L, pair func(L) (owner, linked uuid.UUID)) map[uuid.UUID][]uuid.UUID {
	out := map[uuid.UUID][]uuid.UUID{}
	for _, row := range rows {
		o, l := pair(row)
		out[o] = append(out[o], l)
	}
	return out
}

// linkBadge makes the badge's program links exactly programIDs; programs see the same rows as badgeIds.
func linkBadge(ctx context.Context, q *db.Queries, org, badge uuid.UUID, programIDs []uuid.UUID) error {
	if err := q.UnlinkBadgePrograms(ctx, db.UnlinkBadgeProgramsParams{OrgID: org, BadgeID: badge, Keep: nonNil(programIDs)}); err != nil {
		return err
	}
	return linkPairs(ctx, q, org, programIDs, func(program uuid.UUID) (uuid.UUID, uuid.UUID) { return program, badge })
}

// linkProgram makes the program's links exactly badgeIDs.
func linkProgram(ctx context.Context, q *db.Queries, org, program uuid.UUID, badgeIDs []uuid.UUID) error {
	if err := q.UnlinkProgramBadges(ctx, db.UnlinkProgramBadgesParams{OrgID: org, ProgramID: program, Keep: nonNil(badgeIDs)}); err != nil {
		return err
	}
	return linkPairs(ctx, q, org, badgeIDs, func(badge uuid.UUID) (uuid.UUID, uuid.UUID) { return program, badge })
}

// linkPairs links the program and badge that pair names for each id (a link that exists stays).
func linkPairs(ctx context.Context, q *db.Queries, org uuid.UUID, ids []uuid.UUID, pair func(uuid.UUID) (program, badge uuid.UUID)) error {
	for _, id := range ids {
		program, badge := pair(id)
		if err := q.LinkProgramBadge(ctx, db.LinkProgramBadgeParams{OrgID: org, ProgramID: program, BadgeID: badge}); err != nil {
			return err
		}
	}
	return nil
}

// programIDsOf are the ids of the programs each badge links.
func programIDsOf(ctx context.Context, q *db.Queries, org uuid.UUID, badges ...uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
	rows, err := q.ListProgramIDsOfBadges(ctx, db.ListProgramIDsOfBadgesParams{OrgID: org, BadgeIds: badges})
	if err != nil {
		return nil, err
	}
	return groupLinks(rows, func(l db.ListProgramIDsOfBadgesRow) (uuid.UUID, uuid.UUID) { return l.BadgeID, l.ProgramID }), nil
}

// badgeIDsOf are the ids of the badges each program links.
func badgeIDsOf(ctx context.Context, q *db.Queries, org uuid.UUID, programs ...uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
	rows, err := q.ListBadgeIDsOfPrograms(ctx, db.ListBadgeIDsOfProgramsParams{OrgID: org, ProgramIds: programs})
	if err != nil {
		return nil, err
	}
	return groupLinks(rows, func(l db.ListBadgeIDsOfProgramsRow) (uuid.UUID, uuid.UUID) { return l.ProgramID, l.BadgeID }), nil
}

// checkAllLive answers missing unless every id names a live row of the organization (count counts those that
// do); no ids need no query.
func checkAllLive(ids []uuid.UUID, count func() (int64, error), missing error) error {
	if len(ids) == 0 {
		return nil
	}
	n, err := count()
	if err != nil {
		return err
	}
	if int(n) != len(ids) {
		return missing
	}
	return nil
}

// checkImage reports a field error when the image is not an upload of the organization (a badge's image and
// signature image, a program's image).
func (h *handler) checkImage(ctx context.Context, q *db.Queries, org uuid.UUID, field string, id *uuid.UUID) (*fieldError, error) {
	if id == nil {
		return nil, nil
	}
	_, err := q.GetMediaFile(ctx, db.GetMediaFileParams{OrgID: org, ID: *id})
	if db.IsNotFound(err) {
		return &fieldError{Field: field, Message: "no image with id " + id.String() + " in this organization; upload it with POST /media-files/images"}, nil
	}
	return nil, err
}
