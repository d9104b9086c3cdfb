package activities

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/apikey"
	"github.com/badged/badged/internal/issuancelog"
	"github.com/badged/badged/internal/issuer"
)

// loggedCheckpoint is a checkpoint the anchor step signed: its root rides in the batch's anchor transaction.
type loggedCheckpoint struct {
	org  uuid.UUID
	size int64
	root [32]byte
}

// logRow is one signed credential to log: its organization and entry.
type logRow struct {
	org   uuid.UUID
	entry issuancelog.Entry
}

func newLogRow(org uuid.UUID, credentialID string, sha []byte, validFrom time.Time) logRow {
	r := logRow{org: org, entry: issuancelog.Entry{CredentialID: credentialID, Type: issuancelog.CredentialType, ValidFrom: validFrom}}
	copy(r.entry.SHA256[:], sha)
	return r
}

// logCredentials appends the signed live credentials among ids to their organizations' issuance logs, in the
// order of ids (the batch's order), inside the caller's transaction q (see appendToLogs).
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
	logRows := make([]logRow, len(rows))
	for i, r := range rows {
		logRows[i] = newLogRow(r.OrgID, a.Issuer.CredentialID(r.ID), r.CredentialSha256, r.IssuedAt)
	}
	return appendToLogs(ctx, q, a.Issuer, logRows, anchorKey)
}

// appendToLogs appends rows, in their order, to their organizations' issuance logs inside the caller's transaction
// q: one checkpoint per organization, signed with its live issuer key and naming anchorKey (nil: not anchored).
// Organizations are locked in id order, so two batches that share organizations cannot deadlock. Credentials
// already logged (a retried step) are skipped; it returns the checkpoints it signed.
func appendToLogs(ctx context.Context, q *db.Queries, iss *issuer.Service, rows []logRow, anchorKey *string) ([]loggedCheckpoint, error) {
	byOrg := map[uuid.UUID][]issuancelog.Entry{}
	for _, r := range rows {
		byOrg[r.org] = append(byOrg[r.org], r.entry)
	}
	orgs := make([]uuid.UUID, 0, len(byOrg))
	for org := range byOrg {
		orgs = append(orgs, org)
	}
	slices.SortFunc(orgs, func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) })
	var out []loggedCheckpoint
	for _, org := range orgs {
		key, err := iss.Key(ctx, org, apikey.ModeLive)
		if err != nil {
			return nil, err
		}
		res, err := issuancelog.Append(ctx, q, issuancelog.Origin(iss.BaseURL, org), org, key, byOrg[org], anchorKey)
		if err != nil {
			return nil, persistErr("append to issuance log", err)
		}
		if res.Added > 0 {
			out = append(out, loggedCheckpoint{org: org, size: res.Head.Size, root: res.Head.Root})
		}
	}
	return out, nil
}

// anchorLeaf is one leaf of an anchor's tree: a credential's digest, or an issuance log checkpoint's root.
type anchorLeaf struct {
	id         uuid.UUID
	checkpoint *loggedCheckpoint
	digest     []byte
}

// anchorLeaves are an anchor's leaves: each row's credential (leaf gives its id and digest), then the root of
// each checkpoint the rows were logged under. The anchor step and the wallet sweep both anchor this way.
func anchorLeaves[R any](rows []R, leaf func(R) (uuid.UUID, []byte), checkpoints []loggedCheckpoint) []anchorLeaf {
	leaves := make([]anchorLeaf, 0, len(rows)+len(checkpoints))
	for _, r := range rows {
		id, digest := leaf(r)
		leaves = append(leaves, anchorLeaf{id: id, digest: digest})
	}
	for i := range checkpoints {
		leaves = append(leaves, anchorLeaf{checkpoint: &checkpoints[i], digest: checkpoints[i].root[:]})
	}
	return leaves
}

// assignLeaves orders an anchor's leaves (credentials and checkpoint roots) as merkleAssignment does, stores each
// checkpoint root's proof and returns the credentials' ids and proofs, for the assignment query.
func assignLeaves(ctx context.Context, q *db.Queries, leaves []anchorLeaf) ([]uuid.UUID, []string, error) {
	leafIDs, proofs, err := merkleAssignment(leaves, func(l anchorLeaf) (uuid.UUID, []byte) { return l.id, l.digest })
	if err != nil {
		return nil, nil, err
	}
	var ids []uuid.UUID
	var out []string
	for i := range leaves {
		if cp := leaves[i].checkpoint; cp != nil {
			if err := q.SetIssuanceLogCheckpointAnchorProof(ctx, db.SetIssuanceLogCheckpointAnchorProofParams{
				OrgID: cp.org, TreeSize: cp.size, AnchorProof: []byte(proofs[i])}); err != nil {
				return nil, nil, err
			}
			continue
		}
		ids = append(ids, leafIDs[i])
		out = append(out, proofs[i])
	}
	return ids, out, nil
}

// withCheckpointRoots adds the roots of the checkpoints signed with an anchor to its credentials' digests, in the
// byte order of the tree's leaves (assignLeaves).
func withCheckpointRoots(ctx context.Context, q *db.Queries, key string, digests [][32]byte) ([][32]byte, error) {
	roots, err := q.ListIssuanceLogAnchorRoots(ctx, key)
	if err != nil {
		return nil, err
	}
	for _, r := range roots {
		digests = append(digests, [32]byte(r))
	}
	slices.SortFunc(digests, func(x, y [32]byte) int { return slices.Compare(x[:], y[:]) })
	return digests, nil
}
