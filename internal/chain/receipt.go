package chain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ReceiptType and ReceiptVersion name the format of Receipt; a new version changes what a verifier must do.
const (
	ReceiptType    = "BadgedAnchorReceipt"
	ReceiptVersion = 1
)

// The rules a receipt states in words, so that a reader can check it without this code.
const (
	digestRule  = "sha256(credential bytes exactly as served at credentialId)"
	leafRule    = "sha256(0x00 || digest)"
	nodeRule    = "sha256(0x01 || min(a, b) || max(a, b)), byte-wise order; a node without a sibling moves up unchanged"
	batchData   = "the transaction's input data is exactly the 32-byte Merkle root"
	singleData  = "the transaction's input data is exactly the 32-byte digest"
	proofReadme = "hash the leaf with each proof entry in turn (node rule) to reach the root"
)

// Receipt is the public anchor receipt of one credential: everything needed to check, with only the credential
// bytes and a JSON-RPC endpoint of the chain, that the credential was anchored in a given transaction.
type Receipt struct {
	Type         string        `json:"type"`    // ReceiptType
	Version      int           `json:"version"` // ReceiptVersion
	CredentialID string        `json:"credentialId"`
	Digest       ReceiptDigest `json:"digest"`
	Merkle       *ReceiptTree  `json:"merkle"` // null: the credential has a transaction of its own (data = digest)
	Chain        ReceiptChain  `json:"chain"`
}

// ReceiptDigest is the credential's digest.
type ReceiptDigest struct {
	Algorithm string `json:"algorithm"` // "sha-256"
	Rule      string `json:"rule"`
	Value     string `json:"value"` // 0x-hex
}

// ReceiptTree is the credential's place in the Merkle tree whose root the transaction carries.
type ReceiptTree struct {
	LeafRule string `json:"leafRule"`
	NodeRule string `json:"nodeRule"`
	Leaf     string `json:"leaf"`  // 0x-hex leaf hash
	Proof    Proof  `json:"proof"` // sibling hashes, leaf to root; sorted pairs need no positions
	Root     string `json:"root"`  // 0x-hex
	Note     string `json:"note"`
}

// ReceiptChain is the anchor transaction.
type ReceiptChain struct {
	Namespace       string `json:"namespace"` // CAIP-2 chain id, "eip155:<chainId>"
	ChainID         uint64 `json:"chainId"`
	TransactionHash string `json:"transactionHash"`
	BlockNumber     uint64 `json:"blockNumber"`
	From            string `json:"from"` // the sender: the issuer's controller document names it
	To              string `json:"to"`
	Value           string `json:"value"` // "0"
	DataFormat      string `json:"dataFormat"`
	Data            string `json:"data"` // 0x-hex, what the transaction carries
}

// ReceiptInput is what the issuer recorded about one anchored credential.
type ReceiptInput struct {
	CredentialID string
	Digest       [32]byte
	Proof        Proof // nil for a credential anchored alone
	Batched      bool  // anchored as a leaf of a Merkle tree (a proof of length 0 is a tree of one)
	ChainID      uint64
	TxHash       string
	BlockNumber  uint64
	From, To     string
}

// NewReceipt builds the receipt of in; the root comes from the digest and the proof, never from storage, so a
// receipt is consistent by construction.
func NewReceipt(in ReceiptInput) Receipt {
	r := Receipt{
		Type: ReceiptType, Version: ReceiptVersion, CredentialID: in.CredentialID,
		Digest: ReceiptDigest{Algorithm: "sha-256", Rule: digestRule, Value: hex0x(in.Digest[:])},
		Chain: ReceiptChain{Namespace: "eip155:" + strconv.FormatUint(in.ChainID, 10), ChainID: in.ChainID,
			TransactionHash: in.TxHash, BlockNumber: in.BlockNumber, From: in.From, To: in.To, Value: "0",
			DataFormat: singleData, Data: hex0x(in.Digest[:])},
	}
	if in.Batched {
		proof := in.Proof
		if proof == nil {
			proof = Proof{}
		}
		leaf, root := leafHash(in.Digest), proof.Root(in.Digest)
		r.Merkle = &ReceiptTree{LeafRule: leafRule, NodeRule: nodeRule, Leaf: hex0x(leaf[:]), Proof: proof,
			Root: hex0x(root[:]), Note: proofReadme}
		r.Chain.DataFormat, r.Chain.Data = batchData, hex0x(root[:])
	}
	return r
}

// Reasons a receipt does not hold; test them with errors.Is.
var (
	ErrReceiptFormat = errors.New("not a badged anchor receipt of a known version")
	ErrDigest        = errors.New("the credential's SHA-256 is not the receipt's digest")
	ErrProof         = errors.New("the Merkle proof does not lead from the digest to the receipt's root")
	ErrAnchoredData  = errors.New("the receipt's transaction data is not what the digest and proof lead to")
)

// CheckFormat checks the receipt's type and version.
func (r Receipt) CheckFormat() error {
	if r.Type != ReceiptType || r.Version != ReceiptVersion {
		return fmt.Errorf("%w: type %q version %d", ErrReceiptFormat, r.Type, r.Version)
	}
	return nil
}

// CheckDigest checks that the receipt's digest is the SHA-256 of cred, the credential bytes exactly as served.
func (r Receipt) CheckDigest(cred []byte) ([32]byte, error) {
	sum := sha256.Sum256(cred)
	if !strings.EqualFold(r.Digest.Value, hex0x(sum[:])) {
		return sum, fmt.Errorf("%w: computed %s, receipt says %s", ErrDigest, hex0x(sum[:]), r.Digest.Value)
	}
	return sum, nil
}

// AnchoredData returns the 32 bytes the transaction must carry for digest: the root its proof leads to (recomputed
// here, then compared with the receipt's root and data), or the digest itself for a credential anchored alone.
func (r Receipt) AnchoredData(digest [32]byte) ([32]byte, error) {
	want := digest
	if r.Merkle != nil {
		want = r.Merkle.Proof.Root(digest)
		if !strings.EqualFold(r.Merkle.Root, hex0x(want[:])) {
			return want, fmt.Errorf("%w: %d steps lead to %s, receipt says %s", ErrProof, len(r.Merkle.Proof), hex0x(want[:]), r.Merkle.Root)
		}
	}
	data, err := hex.DecodeString(strings.TrimPrefix(r.Chain.Data, "0x"))
	if err != nil || !bytes.Equal(data, want[:]) {
		return want, fmt.Errorf("%w: want %s, receipt says %s", ErrAnchoredData, hex0x(want[:]), r.Chain.Data)
	}
	return want, nil
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }
