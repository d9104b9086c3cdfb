package issuancelog

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/badged/badged/internal/credential"
)

// State is what a monitor remembers of a log between runs (the --state file): the last checkpoint it verified.
type State struct {
	Origin     string `json:"origin"`
	TreeSize   int64  `json:"treeSize"`
	RootHash   string `json:"rootHash"` // base64, as in the checkpoint
	Checkpoint string `json:"checkpoint"`
}

// Logged is one entry of the log with its index.
type Logged struct {
	Index int64
	Entry
}

// Report is what one monitor run verified: the log's checkpoint, and the entries added since the state's.
type Report struct {
	Checkpoint Checkpoint
	Note       string
	Since      int64 // the state's tree size (0 without state)
	Added      []Logged
}

// NewState is the state after a report.
func (r Report) NewState() State {
	return State{Origin: r.Checkpoint.Origin, TreeSize: r.Checkpoint.Size,
		RootHash: base64.StdEncoding.EncodeToString(r.Checkpoint.Root[:]), Checkpoint: r.Note}
}

// Monitor reads an issuer's log over HTTP, the way any C2SP log client would.
type Monitor struct {
	Client *http.Client // nil: http.DefaultClient
}

// Verify checks the log of the issuer whose id (an HTTPS URL serving its controller document) is issuerURL: the
// checkpoint's signature with an Ed25519 key the controller document lists, every entry bundle and hash tile
// against the checkpoint's root (recomputed from the entries), and, given the previous run's state, a consistency
// proof (read from the served tiles) that the log only grew since. It returns the entries added since the state.
func (m Monitor) Verify(ctx context.Context, issuerURL string, prev *State) (Report, error) {
	issuerURL = strings.TrimRight(issuerURL, "/")
	origin, err := IssuerOrigin(issuerURL)
	if err != nil {
		return Report{}, err
	}
	keys, err := m.controllerKeys(ctx, issuerURL)
	if err != nil {
		return Report{}, err
	}
	note, err := m.get(ctx, issuerURL+"/log/checkpoint")
	if err != nil {
		return Report{}, err
	}
	var cp Checkpoint
	err = errors.New("the controller document lists no Ed25519 key")
	for _, k := range keys {
		if cp, err = OpenCheckpoint(note, origin, k); err == nil {
			break
		}
	}
	if err != nil {
		return Report{}, fmt.Errorf("checkpoint: %w", err)
	}
	rep := Report{Checkpoint: cp, Note: string(note)}
	if prev != nil {
		if prev.Origin != origin {
			return Report{}, fmt.Errorf("the state file is of log %s, not %s", prev.Origin, origin)
		}
		if cp.Size < prev.TreeSize {
			return Report{}, fmt.Errorf("the log shrank: tree size %d, %d at the last run", cp.Size, prev.TreeSize)
		}
		rep.Since = prev.TreeSize
	}
	mem, entries, err := m.readEntries(ctx, issuerURL, cp.Size)
	if err != nil {
		return Report{}, err
	}
	if root, err := tlog.TreeHash(cp.Size, mem); err != nil || root != cp.Root {
		return Report{}, fmt.Errorf("the log's entries do not hash to the checkpoint's root (tree size %d)", cp.Size)
	}
	if err := m.checkHashTiles(ctx, issuerURL, cp, mem); err != nil {
		return Report{}, err
	}
	if prev != nil && prev.TreeSize > 0 {
		if err := m.checkConsistency(ctx, issuerURL, cp, *prev); err != nil {
			return Report{}, err
		}
	}
	for i := rep.Since; i < cp.Size; i++ {
		e, err := ParseEntry(entries[i])
		if err != nil {
			return Report{}, fmt.Errorf("entry %d: %w", i, err)
		}
		rep.Added = append(rep.Added, Logged{Index: i, Entry: e})
	}
	return rep, nil
}

// originOf is the log origin of an issuer id: its URL without the scheme, then "/log".
func IssuerOrigin(issuerURL string) (string, error) {
	u, err := url.Parse(issuerURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("issuer %q is not a URL", issuerURL)
	}
	return u.Host + strings.TrimRight(u.Path, "/") + "/log", nil
}

// controllerKeys returns the Ed25519 Multikeys the issuer's controller document lists.
func (m Monitor) controllerKeys(ctx context.Context, issuerURL string) ([]ed25519.PublicKey, error) {
	body, err := m.get(ctx, issuerURL)
	if err != nil {
		return nil, err
	}
	var doc struct {
		VerificationMethod []struct {
			Type               string `json:"type"`
			PublicKeyMultibase string `json:"publicKeyMultibase"`
		} `json:"verificationMethod"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("controller document: %w", err)
	}
	var keys []ed25519.PublicKey
	for _, vm := range doc.VerificationMethod {
		if vm.Type != "Multikey" {
			continue
		}
		if k, err := credential.DecodeMultikey(vm.PublicKeyMultibase); err == nil {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// readEntries fetches every entry bundle of a tree of size and recomputes its stored hashes.
func (m Monitor) readEntries(ctx context.Context, issuerURL string, size int64) (*MemoryHashes, [][]byte, error) {
	mem := &MemoryHashes{}
	var all [][]byte
	for n := int64(0); n<<TileHeight < size; n++ {
		w := min(size-n<<TileHeight, 1<<TileHeight)
		t := tlog.Tile{H: TileHeight, L: -1, N: n, W: int(w)}
		body, err := m.get(ctx, issuerURL+"/log/"+TilePath(t))
		if err != nil {
			return nil, nil, err
		}
		entries, err := SplitBundle(body)
		if err != nil || int64(len(entries)) != w {
			return nil, nil, fmt.Errorf("entry bundle %s: %d entries of %d (%v)", TilePath(t), len(entries), w, err)
		}
		for _, e := range entries {
			if err := mem.Add(e); err != nil {
				return nil, nil, err
			}
			all = append(all, e)
		}
	}
	return mem, all, nil
}

// checkHashTiles compares every hash tile of the checkpoint's tree with the one recomputed from the entries.
func (m Monitor) checkHashTiles(ctx context.Context, issuerURL string, cp Checkpoint, mem *MemoryHashes) error {
	for _, t := range tlog.NewTiles(TileHeight, 0, cp.Size) {
		want, err := tlog.ReadTileData(t, mem)
		if err != nil {
			return err
		}
		got, err := m.get(ctx, issuerURL+"/log/"+TilePath(t))
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("hash tile %s does not match the log's entries", TilePath(t))
		}
	}
	return nil
}

// checkConsistency proves, from the served tiles (each checked against the new root by tlog), that the state's
// tree is a prefix of the checkpoint's.
func (m Monitor) checkConsistency(ctx context.Context, issuerURL string, cp Checkpoint, prev State) error {
	old, err := base64.StdEncoding.DecodeString(prev.RootHash)
	if err != nil || len(old) != tlog.HashSize {
		return fmt.Errorf("state file: root hash %q", prev.RootHash)
	}
	tr := tlog.TileHashReader(tlog.Tree{N: cp.Size, Hash: cp.Root}, httpTiles{m: m, ctx: ctx, base: issuerURL + "/log/"})
	proof, err := tlog.ProveTree(cp.Size, prev.TreeSize, tr)
	if err != nil {
		return fmt.Errorf("consistency proof from %d to %d: %w", prev.TreeSize, cp.Size, err)
	}
	if err := tlog.CheckTree(proof, cp.Size, cp.Root, prev.TreeSize, tlog.Hash(old)); err != nil {
		return fmt.Errorf("the log forked: tree %d is not consistent with the last run's tree %d: %w", cp.Size, prev.TreeSize, err)
	}
	return nil
}

// TilePath is a tile's C2SP path ("tile/<L>/<N>[.p/<W>]", "tile/entries/<N>[.p/<W>]"): Go's sumdb path without
// the height element.
func TilePath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), fmt.Sprintf("tile/%d/", t.H))
	if rest, ok := strings.CutPrefix(p, "data/"); ok {
		p = "entries/" + rest
	}
	return "tile/" + p
}

// httpTiles reads tiles over HTTP for tlog.TileHashReader, which checks them against the tree's root.
type httpTiles struct {
	m    Monitor
	ctx  context.Context
	base string
}

func (h httpTiles) Height() int                     { return TileHeight }
func (h httpTiles) SaveTiles([]tlog.Tile, [][]byte) {}
func (h httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := h.m.get(h.ctx, h.base+TilePath(t))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// maxBody bounds what the monitor reads of one response: a full entry bundle of maximal entries.
const maxBody = 256*(MaxEntrySize+2) + 1

func (m Monitor) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/did+ld+json, application/json;q=0.9, */*;q=0.5")
	c := m.Client
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, res.Status)
	}
	return body, nil
}
