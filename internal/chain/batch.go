package chain

import (
	"context"

	"github.com/badged/badged/internal/errcode"
)

// Batch is the result of AnchorBatch: the anchor of the Merkle root and each digest's proof, in input order.
type Batch struct {
	Anchor
	Root   [32]byte
	Proofs []Proof
}

// AnchorBatch anchors the Merkle root of digests in one transaction under key, with Anchor's idempotency and errors.
// A retry must pass the same digests in the same order (the root is what is compared). Each credential then stores
// the batch anchor and its proof, and is verified with VerifyProof.
func (a *Anchorer) AnchorBatch(ctx context.Context, key string, digests [][32]byte) (Batch, error) {
	if len(digests) == 0 {
		return Batch{}, errcode.New(errcode.InternalServerError, "anchor batch of no digests")
	}
	root, proofs := BuildMerkle(digests)
	anc, err := a.Anchor(ctx, key, root)
	if err != nil {
		return Batch{}, err
	}
	return Batch{Anchor: anc, Root: root, Proofs: proofs}, nil
}
