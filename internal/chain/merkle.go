package chain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Merkle batches: one transaction carries the root of a tree over many digests, and each credential keeps the path
// from its digest to that root.
//
// The tree hashes sorted pairs (as OpenZeppelin's MerkleProof and Blockcerts proofs do, so a proof needs no
// left/right flags) with RFC 6962 domain separation, so that an inner node can never be passed off as a leaf:
//
//	leaf   = SHA-256(0x00 || digest)
//	parent = SHA-256(0x01 || min(a, b) || max(a, b))   (byte-wise order)
//
// A node without a sibling on its level moves up unchanged. The root of a single digest is its leaf hash.

// Proof is the sibling hashes from a leaf up to the root. It marshals to JSON as an array of 0x-hex strings.
type Proof [][32]byte

// Root returns the root that digest and p lead to.
func (p Proof) Root(digest [32]byte) [32]byte {
	h := leafHash(digest)
	for _, sib := range p {
		h = parentHash(h, sib)
	}
	return h
}

// MarshalJSON writes p as an array of 0x-hex strings.
func (p Proof) MarshalJSON() ([]byte, error) {
	out := make([]string, len(p))
	for i, h := range p {
		out[i] = "0x" + hex.EncodeToString(h[:])
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads an array of 0x-hex strings of 32 bytes each.
func (p *Proof) UnmarshalJSON(data []byte) error {
	var in []string
	if err := json.Unmarshal(data, &in); err != nil {
		return fmt.Errorf("decode merkle proof: %w", err)
	}
	out := make(Proof, len(in))
	for i, s := range in {
		b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
		if err != nil || len(b) != 32 {
			return fmt.Errorf("decode merkle proof step %d: not 32 hex bytes", i)
		}
		copy(out[i][:], b)
	}
	*p = out
	return nil
}

// BuildMerkle returns the root of the tree over digests and, for each digest in order, its proof. It panics on an
// empty list; callers check first.
func BuildMerkle(digests [][32]byte) (root [32]byte, proofs []Proof) {
	if len(digests) == 0 {
		panic("chain: merkle tree of no digests")
	}
	level := make([][32]byte, len(digests))
	pos := make([]int, len(digests)) // each leaf's index on the current level
	for i, d := range digests {
		level[i] = leafHash(d)
		pos[i] = i
	}
	proofs = make([]Proof, len(digests))
	for len(level) > 1 {
		for leaf, at := range pos {
			if sib := at ^ 1; sib < len(level) {
				proofs[leaf] = append(proofs[leaf], level[sib])
			}
			pos[leaf] = at / 2
		}
		next := make([][32]byte, 0, (len(level)+1)/2)
		for i := 0; i < len(level); i += 2 {
			if i+1 < len(level) {
				next = append(next, parentHash(level[i], level[i+1]))
			} else {
				next = append(next, level[i])
			}
		}
		level = next
	}
	return level[0], proofs
}

func leafHash(d [32]byte) [32]byte {
	var buf [33]byte
	buf[0] = 0x00
	copy(buf[1:], d[:])
	return sha256.Sum256(buf[:])
}

func parentHash(a, b [32]byte) [32]byte {
	if bytes.Compare(a[:], b[:]) > 0 {
		a, b = b, a
	}
	var buf [65]byte
	buf[0] = 0x01
	copy(buf[1:], a[:])
	copy(buf[33:], b[:])
	return sha256.Sum256(buf[:])
}
