package issuancelog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/badged/badged/db"
)

// TileHeight is the C2SP tlog-tiles height: 256 hashes or entries a full tile.
const TileHeight = 8

// ErrNotFound answers a tile or entry the log does not hold (yet): past the tree size, or no log at all.
var ErrNotFound = errors.New("issuance log: not found")

// Inclusion is a credential's place in its organization's log, proven against the checkpoint signed for its batch.
type Inclusion struct {
	Index    int64
	Entry    []byte
	TreeSize int64
	Root     tlog.Hash
	Proof    tlog.RecordProof
	Note     string // the signed checkpoint of TreeSize
	// AnchorKey names the chain anchor whose Merkle tree holds Root as a leaf (nil: not anchored), AnchorProof
	// is Root's inclusion proof in that tree (JSON, as internal/chain.Proof).
	AnchorKey   *string
	AnchorProof []byte
}

// Prove returns a credential's inclusion in the log, against the checkpoint of the batch that appended it (that
// one never changes, so a receipt that carries it can be cached). found is false when the log does not hold it.
func Prove(ctx context.Context, q *db.Queries, org uuid.UUID, credentialID string) (Inclusion, bool, error) {
	e, err := q.GetIssuanceLogEntry(ctx, db.GetIssuanceLogEntryParams{OrgID: org, CredentialID: credentialID})
	if db.IsNotFound(err) {
		return Inclusion{}, false, nil
	}
	if err != nil {
		return Inclusion{}, false, fmt.Errorf("read issuance log entry: %w", err)
	}
	cp, err := q.GetIssuanceLogCheckpointCovering(ctx, db.GetIssuanceLogCheckpointCoveringParams{OrgID: org, Idx: e.Idx})
	if err != nil {
		return Inclusion{}, false, fmt.Errorf("read checkpoint of entry %d: %w", e.Idx, err)
	}
	r := &hashReader{ctx: ctx, q: q, org: org}
	proof, err := tlog.ProveRecord(cp.TreeSize, e.Idx, r)
	if err != nil {
		return Inclusion{}, false, fmt.Errorf("prove entry %d: %w", e.Idx, err)
	}
	in := Inclusion{Index: e.Idx, Entry: e.Entry, TreeSize: cp.TreeSize, Proof: proof, Note: cp.Note,
		AnchorKey: cp.AnchorKey, AnchorProof: cp.AnchorProof}
	copy(in.Root[:], cp.RootHash)
	return in, true, nil
}

// Head returns the log's latest signed checkpoint note and its tree size; ErrNotFound while it has none.
func Head(ctx context.Context, q *db.Queries, org uuid.UUID) (string, int64, error) {
	l, err := q.GetIssuanceLog(ctx, org)
	if db.IsNotFound(err) || (err == nil && l.Checkpoint == nil) {
		return "", 0, ErrNotFound
	}
	if err != nil {
		return "", 0, fmt.Errorf("read issuance log: %w", err)
	}
	return *l.Checkpoint, l.TreeSize, nil
}

// ParseTilePath reads a C2SP tile path below "tile/": "<L>/<N>[.p/<W>]" for hashes or "entries/<N>[.p/<W>]" for
// entry bundles (level -1). C2SP paths are Go's sumdb tile paths without the height element.
func ParseTilePath(rest string) (tlog.Tile, error) {
	if after, ok := strings.CutPrefix(rest, "entries/"); ok {
		rest = "data/" + after
	}
	t, err := tlog.ParseTilePath(fmt.Sprintf("tile/%d/%s", TileHeight, rest))
	if err != nil {
		return tlog.Tile{}, ErrNotFound
	}
	return t, nil
}

// Full reports whether a tile is complete (immutable forever) rather than partial.
func Full(t tlog.Tile) bool { return t.W == 1<<t.H }

// within reports whether a tree of size holds everything the tile lists.
func within(t tlog.Tile, size int64) bool {
	level := t.L
	if level < 0 {
		level = 0
	}
	end := (t.N<<t.H + int64(t.W)) << (uint(level) * uint(t.H))
	return end <= size && end > 0
}

// ReadTile returns a tile's bytes from a log of treeSize entries: hashes (32 bytes each) for L ≥ 0, an entry
// bundle (each entry a big-endian uint16 length and its bytes) for L = -1. A tile past the tree size is ErrNotFound.
func ReadTile(ctx context.Context, q *db.Queries, org uuid.UUID, t tlog.Tile, treeSize int64) ([]byte, error) {
	if !within(t, treeSize) {
		return nil, ErrNotFound
	}
	if t.L >= 0 {
		return tlog.ReadTileData(t, &hashReader{ctx: ctx, q: q, org: org})
	}
	lo := t.N << t.H
	rows, err := q.ReadIssuanceLogEntries(ctx, db.ReadIssuanceLogEntriesParams{OrgID: org, Lo: lo, Hi: lo + int64(t.W)})
	if err != nil {
		return nil, fmt.Errorf("read issuance log entries: %w", err)
	}
	if len(rows) != t.W {
		return nil, fmt.Errorf("issuance log: %d entries stored of %d from %d", len(rows), t.W, lo)
	}
	var out []byte
	for _, r := range rows {
		out = binary.BigEndian.AppendUint16(out, uint16(len(r.Entry)))
		out = append(out, r.Entry...)
	}
	return out, nil
}

// DBHashReader reads an organization's stored hashes from Postgres (tlog.HashReader), for proofs between any two
// of its checkpoints.
func DBHashReader(ctx context.Context, q *db.Queries, org uuid.UUID) tlog.HashReader {
	return &hashReader{ctx: ctx, q: q, org: org}
}
