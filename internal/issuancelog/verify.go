package issuancelog

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// CheckInclusion verifies that entry is leaf index of the tree of size whose root is root (RFC 9162 inclusion).
func CheckInclusion(entry []byte, index, size int64, root tlog.Hash, proof tlog.RecordProof) error {
	if err := tlog.CheckRecord(proof, size, root, index, tlog.RecordHash(entry)); err != nil {
		return fmt.Errorf("entry %d is not in the tree of size %d: %w", index, size, err)
	}
	return nil
}

// SplitBundle splits a C2SP entry bundle (each entry a big-endian uint16 length and its bytes) into its entries.
func SplitBundle(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 2 {
			return nil, fmt.Errorf("entry bundle: truncated length")
		}
		n := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+n {
			return nil, fmt.Errorf("entry bundle: entry of %d bytes truncated", n)
		}
		out = append(out, b[2:2+n])
		b = b[2+n:]
	}
	return out, nil
}

// MemoryHashes is a tree's stored hashes kept in memory (a tlog.HashReader), built by appending entries: the
// monitor recomputes a log from its entries with it.
type MemoryHashes []tlog.Hash

// Add appends one entry's stored hashes (the entry being leaf number Size()).
func (m *MemoryHashes) Add(entry []byte) error {
	n := m.Size()
	hs, err := tlog.StoredHashes(n, entry, m)
	if err != nil {
		return err
	}
	*m = append(*m, hs...)
	return nil
}

// Size is the number of entries added so far.
func (m MemoryHashes) Size() int64 {
	// StoredHashCount is increasing in n; the entries are few enough to search.
	lo, hi := int64(0), int64(len(m))
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if tlog.StoredHashCount(mid) <= int64(len(m)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// ReadHashes implements tlog.HashReader.
func (m MemoryHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x < 0 || x >= int64(len(m)) {
			return nil, fmt.Errorf("no stored hash %d", x)
		}
		out[i] = m[x]
	}
	return out, nil
}
