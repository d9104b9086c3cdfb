package issuancelog_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/badged/badged/db"
	"github.com/badged/badged/db/dbtest"
	"github.com/badged/badged/internal/issuancelog"
)

const baseURL = "https://badges.example"

type fixture struct {
	d      *db.DB
	org    uuid.UUID
	key    ed25519.PrivateKey
	origin string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	d := dbtest.New(t)
	org := uuid.New()
	if _, err := d.CreateOrganization(context.Background(), db.CreateOrganizationParams{ID: org, Name: "Org", Credits: 10}); err != nil {
		t.Fatal(err)
	}
	_, key, _ := ed25519.GenerateKey(nil)
	return fixture{d: d, org: org, key: key, origin: issuancelog.Origin(baseURL, org)}
}

func entries(from, n int) []issuancelog.Entry {
	out := make([]issuancelog.Entry, n)
	for i := range out {
		id := fmt.Sprintf("%s/credentials/%08d", baseURL, from+i)
		out[i] = issuancelog.Entry{CredentialID: id, SHA256: sha256.Sum256([]byte(id)), Type: "OpenBadgeCredential",
			ValidFrom: time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)}
	}
	return out
}

func (f fixture) append(t testing.TB, es []issuancelog.Entry) issuancelog.Appended {
	t.Helper()
	var out issuancelog.Appended
	err := f.d.InTx(context.Background(), func(q *db.Queries) error {
		var err error
		out, err = issuancelog.Append(context.Background(), q, f.origin, f.org, f.key, es, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// independentRoot is the RFC 9162 root of the entries computed by transparency-dev/merkle, not by tlog.
func independentRoot(t testing.TB, es []issuancelog.Entry) []byte {
	rf := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := rf.NewEmptyRange(0)
	for _, e := range es {
		b, err := e.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Append(rfc6962.DefaultHasher.HashLeaf(b), nil); err != nil {
			t.Fatal(err)
		}
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestAppend_RootsAndProofs: batches append in order; every checkpoint's root is the RFC 9162 root an independent
// implementation computes; every entry's inclusion proof and a later checkpoint's consistency with an earlier one
// verify with it too; the checkpoint note verifies with the organization's public key.
func TestAppend_RootsAndProofs(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	all := entries(0, 700)
	var heads []issuancelog.Appended
	for _, cut := range [][2]int{{0, 1}, {1, 3}, {3, 256}, {256, 257}, {257, 700}} {
		a := f.append(t, all[cut[0]:cut[1]])
		if a.First != int64(cut[0]) || a.Added != int64(cut[1]-cut[0]) {
			t.Fatalf("batch %v appended %d from %d", cut, a.Added, a.First)
		}
		want := independentRoot(t, all[:cut[1]])
		if string(a.Head.Root[:]) != string(want) {
			t.Fatalf("size %d: tlog root %x, independent root %x", cut[1], a.Head.Root, want)
		}
		cp, err := issuancelog.OpenCheckpoint([]byte(a.Note), f.origin, f.key.Public().(ed25519.PublicKey))
		if err != nil || cp != a.Head {
			t.Fatalf("checkpoint note: %v (%+v vs %+v)", err, cp, a.Head)
		}
		heads = append(heads, a)
	}
	// A retried batch appends nothing and signs nothing.
	if a := f.append(t, all[250:300]); a.Added != 0 || a.Head.Size != 700 {
		t.Fatalf("retry appended %d, size %d", a.Added, a.Head.Size)
	}
	for i, e := range all {
		in, found, err := issuancelog.Prove(ctx, f.d.Queries, f.org, e.CredentialID)
		if err != nil || !found {
			t.Fatalf("prove %d: %v %v", i, found, err)
		}
		if in.Index != int64(i) {
			t.Fatalf("entry %d at index %d", i, in.Index)
		}
		if err := issuancelog.CheckInclusion(in.Entry, in.Index, in.TreeSize, in.Root, in.Proof); err != nil {
			t.Fatal(err)
		}
		hashes := make([][]byte, len(in.Proof))
		for j := range in.Proof {
			hashes[j] = in.Proof[j][:]
		}
		if err := proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(in.Index), uint64(in.TreeSize),
			rfc6962.DefaultHasher.HashLeaf(in.Entry), hashes, in.Root[:]); err != nil {
			t.Fatalf("entry %d: independent inclusion check: %v", i, err)
		}
	}
	r := issuancelog.DBHashReader(ctx, f.d.Queries, f.org)
	for i := range heads {
		for j := i + 1; j < len(heads); j++ {
			old, cur := heads[i].Head, heads[j].Head
			p, err := tlog.ProveTree(cur.Size, old.Size, r)
			if err != nil {
				t.Fatal(err)
			}
			if err := tlog.CheckTree(p, cur.Size, cur.Root, old.Size, old.Root); err != nil {
				t.Fatalf("%d→%d: %v", old.Size, cur.Size, err)
			}
			hashes := make([][]byte, len(p))
			for k := range p {
				hashes[k] = p[k][:]
			}
			if err := proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(old.Size), uint64(cur.Size), hashes,
				old.Root[:], cur.Root[:]); err != nil {
				t.Fatalf("%d→%d: independent consistency check: %v", old.Size, cur.Size, err)
			}
		}
	}
}

// TestAppend_ConcurrentIssuances: batches of one organization appended at once make one linear log: every entry
// exactly once, indexes 0..n-1 without a gap, and the final root is that of the entries in index order.
func TestAppend_ConcurrentIssuances(t *testing.T) {
	f := newFixture(t)
	const workers, per = 6, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := 0; b < per; b += 10 {
				es := entries(w*1000+b, 10)
				errs <- f.d.InTx(context.Background(), func(q *db.Queries) error {
					_, err := issuancelog.Append(context.Background(), q, f.origin, f.org, f.key, es, nil)
					return err
				})
			}
		}()
	}
	go func() { wg.Wait(); close(errs) }()
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	note, size, err := issuancelog.Head(context.Background(), f.d.Queries, f.org)
	if err != nil || size != workers*per {
		t.Fatalf("head size %d: %v", size, err)
	}
	rows, err := f.d.ReadIssuanceLogEntries(context.Background(), db.ReadIssuanceLogEntriesParams{OrgID: f.org, Lo: 0, Hi: size})
	if err != nil || int64(len(rows)) != size {
		t.Fatalf("%d entries: %v", len(rows), err)
	}
	var es []issuancelog.Entry
	for i, r := range rows {
		if r.Idx != int64(i) {
			t.Fatalf("gap: row %d has index %d", i, r.Idx)
		}
		e, err := issuancelog.ParseEntry(r.Entry)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	cp, err := issuancelog.OpenCheckpoint([]byte(note), f.origin, f.key.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if want := independentRoot(t, es); string(cp.Root[:]) != string(want) {
		t.Fatal("the head's root is not the root of the entries in index order")
	}
}

// TestTiles_HashToCheckpointRoot: the hash tiles served for a checkpoint, read through tlog's tile reader (which
// checks each tile against the checkpoint's root), give back the root; tiles past the tree size are ErrNotFound,
// and a narrower partial tile of an older tree stays served (a client of an older checkpoint reads it).
func TestTiles_HashToCheckpointRoot(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var a issuancelog.Appended
	for _, cut := range [][2]int{{0, 300}, {300, 66000 / 100}} {
		a = f.append(t, entries(cut[0], cut[1]-cut[0]))
	}
	tr := tileReader{ctx: ctx, q: f.d.Queries, org: f.org, size: a.Head.Size, t: t}
	tree := tlog.Tree{N: a.Head.Size, Hash: a.Head.Root}
	root, err := tlog.TreeHash(tree.N, tlog.TileHashReader(tree, tr))
	if err != nil || root != a.Head.Root {
		t.Fatalf("root from tiles %x (%v), checkpoint %x", root, err, a.Head.Root)
	}
	for _, p := range []string{"0/002", "0/002.p/149", "1/000", "entries/002", "entries/002.p/149", "bad", "0/x"} {
		tile, err := issuancelog.ParseTilePath(p)
		if err == nil {
			_, err = issuancelog.ReadTile(ctx, f.d.Queries, f.org, tile, a.Head.Size)
		}
		if err != issuancelog.ErrNotFound {
			t.Errorf("tile %s of a tree of %d: %v, want ErrNotFound", p, a.Head.Size, err)
		}
	}
	for _, p := range []string{"0/002.p/148", "entries/002.p/148", "0/001", "1/000.p/2", "0/001.p/5"} {
		tile, err := issuancelog.ParseTilePath(p)
		if err == nil {
			_, err = issuancelog.ReadTile(ctx, f.d.Queries, f.org, tile, a.Head.Size)
		}
		if err != nil {
			t.Errorf("tile %s: %v", p, err)
		}
	}
}

type tileReader struct {
	ctx  context.Context
	q    *db.Queries
	org  uuid.UUID
	size int64
	t    *testing.T
}

func (r tileReader) Height() int                     { return issuancelog.TileHeight }
func (r tileReader) SaveTiles([]tlog.Tile, [][]byte) {}
func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tile := range tiles {
		b, err := issuancelog.ReadTile(r.ctx, r.q, r.org, tile, r.size)
		if err != nil {
			return nil, fmt.Errorf("tile %s: %w", tile.Path(), err)
		}
		out[i] = b
	}
	return out, nil
}
