package issuancelog

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/google/uuid"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/badged/badged/db"
)

// Appended is what one Append did: the entries it added (indexes First..First+Added-1) and the log's head after it.
type Appended struct {
	First, Added int64
	Head         Checkpoint
	Note         string // the signed checkpoint of Head; "" while the log is empty
}

// Append appends entries, in the order given, to the organization's log and signs the new checkpoint with key;
// anchorKey (may be nil) names the chain anchor that will carry the checkpoint's root. It must run inside the
// caller's transaction (q): it takes the log's row lock, so appenders of one organization run one after another
// and each sees the tree the previous one committed. Entries whose credential the log holds already are skipped
// (a retried step), so the whole batch may add nothing, and then no checkpoint is signed.
func Append(ctx context.Context, q *db.Queries, origin string, org uuid.UUID, key ed25519.PrivateKey, entries []Entry, anchorKey *string) (Appended, error) {
	if err := q.EnsureIssuanceLog(ctx, org); err != nil {
		return Appended{}, fmt.Errorf("create issuance log: %w", err)
	}
	head, err := q.LockIssuanceLog(ctx, org)
	if err != nil {
		return Appended{}, fmt.Errorf("lock issuance log: %w", err)
	}
	out := Appended{First: head.TreeSize, Head: Checkpoint{Origin: origin, Size: head.TreeSize}}
	copy(out.Head.Root[:], head.RootHash)
	if head.Checkpoint != nil {
		out.Note = *head.Checkpoint
	}
	fresh, err := unlogged(ctx, q, org, entries)
	if err != nil || len(fresh) == 0 {
		return out, err
	}
	r := &hashReader{ctx: ctx, q: q, org: org, pending: map[int64]tlog.Hash{}}
	params := db.InsertIssuanceLogEntriesParams{OrgID: org}
	hashes := db.InsertIssuanceLogHashesParams{OrgID: org}
	n := head.TreeSize
	for _, e := range fresh {
		data, err := e.Marshal()
		if err != nil {
			return Appended{}, err
		}
		hs, err := tlog.StoredHashes(n, data, r)
		if err != nil {
			return Appended{}, fmt.Errorf("issuance log hashes: %w", err)
		}
		at := tlog.StoredHashCount(n)
		for i, h := range hs {
			r.pending[at+int64(i)] = h
			hashes.Hidxs = append(hashes.Hidxs, at+int64(i))
			hashes.Hashes = append(hashes.Hashes, h[:])
		}
		params.Idxs = append(params.Idxs, n)
		params.CredentialIds = append(params.CredentialIds, e.CredentialID)
		params.Entries = append(params.Entries, data)
		n++
	}
	root, err := tlog.TreeHash(n, r)
	if err != nil {
		return Appended{}, fmt.Errorf("issuance log root: %w", err)
	}
	cp := Checkpoint{Origin: origin, Size: n, Root: root}
	signed, err := SignCheckpoint(cp, key)
	if err != nil {
		return Appended{}, fmt.Errorf("sign checkpoint: %w", err)
	}
	if err := q.InsertIssuanceLogEntries(ctx, params); err != nil {
		return Appended{}, fmt.Errorf("store issuance log entries: %w", err)
	}
	if err := q.InsertIssuanceLogHashes(ctx, hashes); err != nil {
		return Appended{}, fmt.Errorf("store issuance log hashes: %w", err)
	}
	if err := q.InsertIssuanceLogCheckpoint(ctx, db.InsertIssuanceLogCheckpointParams{OrgID: org, TreeSize: n,
		RootHash: root[:], Note: signed, AnchorKey: anchorKey}); err != nil {
		return Appended{}, fmt.Errorf("store checkpoint: %w", err)
	}
	if err := q.SetIssuanceLogHead(ctx, db.SetIssuanceLogHeadParams{OrgID: org, TreeSize: n, RootHash: root[:], Checkpoint: &signed}); err != nil {
		return Appended{}, fmt.Errorf("move issuance log head: %w", err)
	}
	out.Added, out.Head, out.Note = n-head.TreeSize, cp, signed
	return out, nil
}

// unlogged drops the entries whose credential the log (or an earlier entry of the batch) already holds.
func unlogged(ctx context.Context, q *db.Queries, org uuid.UUID, entries []Entry) ([]Entry, error) {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.CredentialID
	}
	present, err := q.ListIssuanceLogPresent(ctx, db.ListIssuanceLogPresentParams{OrgID: org, CredentialIds: ids})
	if err != nil {
		return nil, fmt.Errorf("read issuance log entries: %w", err)
	}
	seen := make(map[string]bool, len(present))
	for _, id := range present {
		seen[id] = true
	}
	fresh := make([]Entry, 0, len(entries))
	for _, e := range entries {
		if !seen[e.CredentialID] {
			seen[e.CredentialID] = true
			fresh = append(fresh, e)
		}
	}
	return fresh, nil
}

// hashReader reads an organization's stored hashes (tlog.HashReader): those of the batch being appended from
// pending, the others from Postgres in one query per call.
type hashReader struct {
	ctx     context.Context
	q       *db.Queries
	org     uuid.UUID
	pending map[int64]tlog.Hash
}

func (r *hashReader) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	var missing []int64
	for _, x := range indexes {
		if _, ok := r.pending[x]; !ok {
			missing = append(missing, x)
		}
	}
	if len(missing) > 0 {
		rows, err := r.q.ReadIssuanceLogHashes(r.ctx, db.ReadIssuanceLogHashesParams{OrgID: r.org, Hidxs: missing})
		if err != nil {
			return nil, fmt.Errorf("read issuance log hashes: %w", err)
		}
		if r.pending == nil {
			r.pending = map[int64]tlog.Hash{}
		}
		for _, row := range rows {
			var h tlog.Hash
			copy(h[:], row.Hash)
			r.pending[row.Hidx] = h // hashes never change once stored: a cache of them stays right
		}
	}
	for i, x := range indexes {
		h, ok := r.pending[x]
		if !ok {
			return nil, fmt.Errorf("issuance log: no stored hash %d", x)
		}
		out[i] = h
	}
	return out, nil
}
