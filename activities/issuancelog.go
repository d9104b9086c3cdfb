package activities

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/issuancelog"
)

// loggedCheckpoint is a checkpoint the anchor step signed: its root rides in the batch's anchor transaction.
type loggedCheckpoint struct {
	org  uuid.UUID
	size int64
	root [32]byte
}

// logCredentials appends the signed live credentials among ids to their organizations' issuance logs, in the
// order of ids (the batch's order), inside the caller's transaction q: one checkpoint per organization, signed with
// its live issuer key and naming anchorKey (nil: not anchored). Organizations are locked in id order, so two
// batches that share organizations cannot deadlock. Credentials already logged (a retried step) are skipped.
func (a *Activities) logCredentials(ctx context.Context, q *db.Queries, ids []uuid.UUID, anchorKey *string) ([]loggedCheckpoint, error) {
	rows, err := q.ListIssuanceLogCandidates(ctx, ids)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	pos := make(map[uuid.UUID]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	slices.SortFunc(rows, func(x, y db.ListIssuanceLogCandidatesRow) int { return pos[x.ID] - pos[y.ID] })
	byOrg := map[uuid.UUID][]issuancelog.Entry{}
	for _, r := range rows {
		e := issuancelog.Entry{CredentialID: a.Issuer.CredentialID(r.ID), Type: issuancelog.CredentialType, ValidFrom: r.IssuedAt}
		copy(e.SHA256[:], r.CredentialSha256)
		byOrg[r.OrgID] = append(byOrg[r.OrgID], e)
	}
	orgs := make([]uuid.UUID, 0, len(byOrg))
	for org := range byOrg {
		orgs = append(orgs, org)
	}
	slices.SortFunc(orgs, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	var out []loggedCheckpoint
	for _, org := range orgs {
		key, err := a.Issuer.Key(ctx, org, apikey.ModeLive)
		if err != nil {
			return nil, err
		}
		res, err := issuancelog.Append(ctx, q, issuancelog.Origin(a.Issuer.BaseURL, org), org, key, byOrg[org], anchorKey)
		if err != nil {
			return nil, persistErr("append to issuance log", err)
		}
		if res.Added > 0 {
			out = append(out, loggedCheckpoint{org: org, size: res.Head.Size, root: res.Head.Root})
		}
	}
	return out, nil
}
