package credential

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/piprate/json-gold/ld"
)

// ErrCanonicalizationBudget reports that a dataset needed more blank-node work than the limits allow. Hostile
// input can make RDFC-1.0 run for seconds or longer (the N-degree hashing is exponential in the worst case).
var ErrCanonicalizationBudget = errors.New("canonicalization work limit exceeded")

// issuer is the RDFC-1.0 identifier issuer.
type issuer struct {
	prefix string
	issued map[string]string
	order  []string
}

func newIssuer(prefix string) *issuer {
	return &issuer{prefix: prefix, issued: map[string]string{}}
}

func (is *issuer) has(id string) bool { _, ok := is.issued[id]; return ok }

func (is *issuer) issue(id string) string {
	if v, ok := is.issued[id]; ok {
		return v
	}
	v := fmt.Sprintf("%s%d", is.prefix, len(is.order))
	is.issued[id] = v
	is.order = append(is.order, id)
	return v
}

func (is *issuer) clone() *issuer {
	c := &issuer{prefix: is.prefix, issued: make(map[string]string, len(is.issued)), order: append([]string(nil), is.order...)}
	for k, v := range is.issued {
		c.issued[k] = v
	}
	return c
}

// rdfc is the state of one run of the RDF Dataset Canonicalization algorithm (RDFC-1.0, which produces the same
// output as URDNA2015).
type rdfc struct {
	ctx        context.Context
	quads      []rdfQuad
	bnodeQuads map[string][]int
	firstHash  map[string]string
	canonical  *issuer
	work       int
	maxWork    int
}

// canonicalizeDataset runs RDFC-1.0 over a json-gold dataset and returns the canonical N-Quads document.
func canonicalizeDataset(ctx context.Context, ds *ld.RDFDataset, lim Limits) (string, error) {
	graphNames := make([]string, 0, len(ds.Graphs))
	for g := range ds.Graphs {
		graphNames = append(graphNames, g)
	}
	sort.Strings(graphNames)
	var quads []rdfQuad
	for _, g := range graphNames {
		for _, q := range ds.Graphs[g] {
			rq, err := toRDFQuad(q, g)
			if err != nil {
				return "", err
			}
			quads = append(quads, rq)
		}
	}
	return canonicalizeQuads(ctx, quads, lim)
}

// canonicalizeQuads runs RDFC-1.0 over quads whose terms are in canonical form (blank nodes keep any label) and
// returns the canonical N-Quads document. Both the json-gold path and the fast path end here, so the limits and
// the output format are decided in one place.
func canonicalizeQuads(ctx context.Context, in []rdfQuad, lim Limits) (string, error) {
	c := &rdfc{ctx: ctx, bnodeQuads: map[string][]int{}, firstHash: map[string]string{},
		canonical: newIssuer("_:c14n"), maxWork: lim.MaxWork}
	// A dataset is a set: duplicate quads (json-gold does not always merge them) would skew the hashes.
	seen := make(map[rdfQuad]struct{}, len(in))
	c.quads = make([]rdfQuad, 0, len(in))
	for _, rq := range in {
		if _, dup := seen[rq]; dup {
			continue
		}
		seen[rq] = struct{}{}
		c.quads = append(c.quads, rq)
	}
	if lim.MaxQuads > 0 && len(c.quads) > lim.MaxQuads {
		return "", fmt.Errorf("%w: %d quads, at most %d", ErrCanonicalizationBudget, len(c.quads), lim.MaxQuads)
	}
	// Step 2: the blank node to quads map.
	for i, q := range c.quads {
		for _, b := range q.blankNodes() {
			c.bnodeQuads[b] = appendUnique(c.bnodeQuads[b], i)
		}
	}
	if lim.MaxBlankNodes > 0 && len(c.bnodeQuads) > lim.MaxBlankNodes {
		return "", fmt.Errorf("%w: %d blank nodes, at most %d", ErrCanonicalizationBudget, len(c.bnodeQuads), lim.MaxBlankNodes)
	}
	// Step 3: first-degree hashes; unique hashes get canonical identifiers at once, in hash order.
	hashToNodes := map[string][]string{}
	nodes := make([]string, 0, len(c.bnodeQuads))
	for b := range c.bnodeQuads {
		nodes = append(nodes, b)
	}
	sort.Strings(nodes)
	for _, b := range nodes {
		h := c.hashFirstDegree(b)
		hashToNodes[h] = append(hashToNodes[h], b)
	}
	hashes := slices.Sorted(maps.Keys(hashToNodes))
	var shared []string
	for _, h := range hashes {
		if len(hashToNodes[h]) > 1 {
			shared = append(shared, h)
			continue
		}
		c.canonical.issue(hashToNodes[h][0])
	}
	// Step 5: blank nodes that share a first-degree hash are told apart by N-degree hashing.
	for _, h := range shared {
		type result struct {
			hash string
			is   *issuer
		}
		var results []result
		for _, b := range hashToNodes[h] {
			if c.canonical.has(b) {
				continue
			}
			tmp := newIssuer("_:b")
			tmp.issue(b)
			rh, ris, err := c.hashNDegree(b, tmp)
			if err != nil {
				return "", err
			}
			results = append(results, result{rh, ris})
		}
		sort.SliceStable(results, func(i, j int) bool { return results[i].hash < results[j].hash })
		for _, r := range results {
			for _, existing := range r.is.order {
				c.canonical.issue(existing)
			}
		}
	}
	// Step 6: relabel and serialize; lines sorted in code point order (byte order of UTF-8).
	lines := make([]string, len(c.quads))
	for i, q := range c.quads {
		lines[i] = q.serialize(func(b string) string { return c.canonical.issue(b) })
	}
	sort.Strings(lines)
	return strings.Join(lines, ""), nil
}

func (c *rdfc) spend() error {
	c.work++
	if c.maxWork > 0 && c.work > c.maxWork {
		return fmt.Errorf("%w: more than %d hashing steps", ErrCanonicalizationBudget, c.maxWork)
	}
	if c.work%64 == 0 {
		if err := c.ctx.Err(); err != nil {
			return fmt.Errorf("canonicalize: %w", err)
		}
	}
	return nil
}

// hashFirstDegree is "Hash First Degree Quads" (RDFC-1.0 4.6).
func (c *rdfc) hashFirstDegree(ref string) string {
	if h, ok := c.firstHash[ref]; ok {
		return h
	}
	idx := c.bnodeQuads[ref]
	lines := make([]string, 0, len(idx))
	for _, i := range idx {
		lines = append(lines, c.quads[i].serialize(func(b string) string {
			if b == ref {
				return "_:a"
			}
			return "_:z"
		}))
	}
	sort.Strings(lines)
	h := sha256Hex(strings.Join(lines, ""))
	c.firstHash[ref] = h
	return h
}

// hashRelated is "Hash Related Blank Node" (RDFC-1.0 4.7).
func (c *rdfc) hashRelated(related string, q *rdfQuad, is *issuer, position string) string {
	var id string
	switch {
	case c.canonical.has(related):
		id = c.canonical.issue(related)
	case is.has(related):
		id = is.issue(related)
	default:
		id = c.hashFirstDegree(related)
	}
	input := position
	if position != "g" {
		input += q.p
	}
	return sha256Hex(input + id)
}

// hashNDegree is "Hash N-Degree Quads" (RDFC-1.0 4.9).
func (c *rdfc) hashNDegree(id string, is *issuer) (string, *issuer, error) {
	if err := c.spend(); err != nil {
		return "", nil, err
	}
	hashToRelated := map[string][]string{}
	for _, i := range c.bnodeQuads[id] {
		q := &c.quads[i]
		for _, comp := range []struct {
			val   string
			blank bool
			pos   string
		}{{q.s, q.sB, "s"}, {q.o, q.oB, "o"}, {q.g, q.gB, "g"}} {
			if !comp.blank || comp.val == id {
				continue
			}
			h := c.hashRelated(comp.val, q, is, comp.pos)
			hashToRelated[h] = append(hashToRelated[h], comp.val)
		}
	}
	var data strings.Builder
	for _, rh := range slices.Sorted(maps.Keys(hashToRelated)) {
		data.WriteString(rh)
		chosenPath := ""
		var chosenIssuer *issuer
		err := permute(hashToRelated[rh], c.spend, func(perm []string) error {
			issuerCopy := is.clone()
			path := ""
			var recursion []string
			worse := func() bool {
				return chosenPath != "" && len(path) >= len(chosenPath) && path > chosenPath
			}
			for _, r := range perm {
				if c.canonical.has(r) {
					path += c.canonical.issue(r)
				} else {
					if !issuerCopy.has(r) {
						recursion = append(recursion, r)
					}
					path += issuerCopy.issue(r)
				}
				if worse() {
					return nil
				}
			}
			for _, r := range recursion {
				h, ris, err := c.hashNDegree(r, issuerCopy)
				if err != nil {
					return err
				}
				path += issuerCopy.issue(r) + "<" + h + ">"
				issuerCopy = ris
				if worse() {
					return nil
				}
			}
			if chosenPath == "" || path < chosenPath {
				chosenPath, chosenIssuer = path, issuerCopy
			}
			return nil
		})
		if err != nil {
			return "", nil, err
		}
		data.WriteString(chosenPath)
		is = chosenIssuer
	}
	return sha256Hex(data.String()), is, nil
}

// permute calls fn with every permutation of items (Heap's algorithm), calling spend before each one.
func permute(items []string, spend func() error, fn func([]string) error) error {
	a := append([]string(nil), items...)
	n := len(a)
	cnt := make([]int, n)
	if err := spend(); err != nil {
		return err
	}
	if err := fn(a); err != nil {
		return err
	}
	for i := 0; i < n; {
		if cnt[i] < i {
			if i%2 == 0 {
				a[0], a[i] = a[i], a[0]
			} else {
				a[cnt[i]], a[i] = a[i], a[cnt[i]]
			}
			if err := spend(); err != nil {
				return err
			}
			if err := fn(a); err != nil {
				return err
			}
			cnt[i]++
			i = 0
		} else {
			cnt[i] = 0
			i++
		}
	}
	return nil
}

func appendUnique(s []int, i int) []int {
	if len(s) > 0 && s[len(s)-1] == i {
		return s
	}
	return append(s, i)
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
