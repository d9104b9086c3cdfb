package issuancelog

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/badged/badged/internal/chain"
)

// ReceiptLog is the `log` member of a credential's public receipt: where the credential stands in its issuer's
// issuance log, proven against the checkpoint signed for its batch.
type ReceiptLog struct {
	Origin         string   `json:"origin"`
	Index          int64    `json:"index"`
	TreeSize       int64    `json:"treeSize"`
	RootHash       string   `json:"rootHash"`       // base64, as in the checkpoint
	Entry          string   `json:"entry"`          // the canonical entry; its leaf is SHA-256(0x00 || entry)
	InclusionProof []string `json:"inclusionProof"` // base64 hashes, RFC 9162 inclusion proof
	Checkpoint     string   `json:"checkpoint"`     // the signed note (C2SP tlog-checkpoint) of TreeSize
	// Anchor is set when the checkpoint's root is a leaf of the Merkle tree of the receipt's own anchor
	// transaction (the credential's batch): then the chain dates the log's state as it dates the credential.
	Anchor *ReceiptLogAnchor `json:"anchor"`
}

// ReceiptLogAnchor proves the checkpoint's root a leaf of the anchor transaction's tree (the receipt's merkle
// rules: leaf = sha256(0x00 || root), sorted-pair nodes).
type ReceiptLogAnchor struct {
	Leaf  string      `json:"leaf"` // 0x-hex: the checkpoint's root hash, as the anchor's digest
	Proof chain.Proof `json:"proof"`
	Root  string      `json:"root"` // 0x-hex: the anchor tree's root, the receipt's merkle.root
}

// NewReceiptLog is the receipt member of an inclusion; anchored tells whether the checkpoint's anchor is the
// receipt's transaction (the caller compares anchor keys).
func NewReceiptLog(origin string, in Inclusion, anchored bool) (ReceiptLog, error) {
	r := ReceiptLog{Origin: origin, Index: in.Index, TreeSize: in.TreeSize, RootHash: base64.StdEncoding.EncodeToString(in.Root[:]),
		Entry: string(in.Entry), Checkpoint: in.Note, InclusionProof: make([]string, len(in.Proof))}
	for i, h := range in.Proof {
		r.InclusionProof[i] = base64.StdEncoding.EncodeToString(h[:])
	}
	if anchored && len(in.AnchorProof) > 0 {
		var p chain.Proof
		if err := json.Unmarshal(in.AnchorProof, &p); err != nil {
			return ReceiptLog{}, fmt.Errorf("checkpoint anchor proof: %w", err)
		}
		root := p.Root(in.Root)
		r.Anchor = &ReceiptLogAnchor{Leaf: "0x" + hex.EncodeToString(in.Root[:]), Proof: p, Root: "0x" + hex.EncodeToString(root[:])}
	}
	return r, nil
}

// Check verifies the receipt's log member for a credential: its entry names the credential's id, the SHA-256 of
// its bytes and its validFrom; the inclusion proof leads to the root; the checkpoint is signed by key (the
// issuer's Ed25519 key; nil skips the signature) under the origin and names the same size and root; and an anchor
// proof, if any, leads from the root to anchorRoot (the receipt's merkle root, "" when it has none). It returns
// what it proved, for the verifier's output.
func (r ReceiptLog) Check(credentialID string, cred []byte, validFrom time.Time, key ed25519.PublicKey, anchorRoot string) (string, error) {
	e, err := ParseEntry([]byte(r.Entry))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(cred)
	switch {
	case e.CredentialID != credentialID:
		return "", fmt.Errorf("the log entry is of %s, not %s", e.CredentialID, credentialID)
	case e.SHA256 != sum:
		return "", fmt.Errorf("the log entry's sha256 is not that of the credential bytes")
	case !validFrom.IsZero() && !e.ValidFrom.Equal(validFrom.UTC().Truncate(time.Second)):
		return "", fmt.Errorf("the log entry's validFrom %s is not the credential's %s", e.ValidFrom, validFrom)
	}
	root, err := base64.StdEncoding.DecodeString(r.RootHash)
	if err != nil || len(root) != tlog.HashSize {
		return "", fmt.Errorf("log rootHash %q", r.RootHash)
	}
	proof := make(tlog.RecordProof, len(r.InclusionProof))
	for i, s := range r.InclusionProof {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b) != tlog.HashSize {
			return "", fmt.Errorf("log inclusionProof[%d] %q", i, s)
		}
		proof[i] = tlog.Hash(b)
	}
	if err := CheckInclusion([]byte(r.Entry), r.Index, r.TreeSize, tlog.Hash(root), proof); err != nil {
		return "", err
	}
	cp, err := ParseCheckpoint(r.checkpointText())
	if key != nil {
		cp, err = OpenCheckpoint([]byte(r.Checkpoint), r.Origin, key)
	}
	if err != nil {
		return "", err
	}
	if cp.Size != r.TreeSize || cp.Root != tlog.Hash(root) || cp.Origin != r.Origin {
		return "", fmt.Errorf("the checkpoint is of %s size %d, the receipt says %s size %d", cp.Origin, cp.Size, r.Origin, r.TreeSize)
	}
	what := fmt.Sprintf("entry %d of %s, in the tree of %d entries signed by the checkpoint", r.Index, r.Origin, r.TreeSize)
	if key == nil {
		what += " (its signature not checked)"
	}
	if r.Anchor != nil {
		got := r.Anchor.Proof.Root(tlog.Hash(root))
		if "0x"+hex.EncodeToString(got[:]) != anchorRoot || r.Anchor.Root != anchorRoot {
			return "", fmt.Errorf("the checkpoint's anchor proof does not lead to the anchor's root %s", anchorRoot)
		}
		what += "; its root is a leaf of the anchor transaction's tree"
	}
	return what, nil
}

// checkpointText is the note's text without its signatures (the lines before the blank line).
func (r ReceiptLog) checkpointText() string {
	for i := 0; i+1 < len(r.Checkpoint); i++ {
		if r.Checkpoint[i] == '\n' && r.Checkpoint[i+1] == '\n' {
			return r.Checkpoint[:i+1]
		}
	}
	return r.Checkpoint
}
