package activities

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/badged/badged/db"
)

// AnchorCredential puts the SHA-256 of the signed credential on chain in a transaction of its own. The anchor key
// is the assertion id, so a retry re-checks the same transaction (the chain package records it before
// broadcasting) instead of sending a second. Test-mode issuances and a service without a chain record the step as
// skipped.
func (a *Activities) AnchorCredential(ctx context.Context, in StepInput) error {
	return a.fail(ctx, "anchor", in, a.anchorCredential(ctx, in))
}

func (a *Activities) anchorCredential(ctx context.Context, in StepInput) error {
	as, err := a.DB.GetAssertionByID(ctx, in.AssertionID)
	if err != nil {
		return fmt.Errorf("load assertion: %w", err)
	}
	if as.Step != StepSigned {
		return nil
	}
	params := db.SetAssertionAnchorParams{ID: as.ID}
	if a.Anchor != nil && as.Mode == "live" {
		var digest [32]byte
		copy(digest[:], as.CredentialSha256)
		res, err := a.Anchor.Anchor(ctx, "assertion/"+as.ID.String(), digest)
		if err != nil {
			return err
		}
		block, chainID := int64(res.BlockNumber), int64(res.ChainID)
		params.AnchorTxHash, params.AnchorBlock, params.AnchorChainID = &res.TxHash, &block, &chainID
	}
	if _, err := a.DB.SetAssertionAnchor(ctx, params); err != nil {
		return persistErr("record anchor", err)
	}
	return nil
}

// AnchorBatch anchors the signed credentials of a batch in ONE transaction carrying the root of a Merkle tree of
// their SHA-256 digests, and records each credential's inclusion proof (as Blockcerts does): one transaction and
// ~22 gas per credential instead of ~22,000. The anchor key names the batch; its digests are those of the
// credentials signed in the range, in seq order, so a retry sends the same root or finds the same transaction.
func (a *Activities) AnchorBatch(ctx context.Context, in AnchorBatchInput) error {
	return a.fail(ctx, "anchor", in, a.anchorBatch(ctx, in))
}

func (a *Activities) anchorBatch(ctx context.Context, in AnchorBatchInput) error {
	rows, err := a.DB.ListSignedInRange(ctx, db.ListSignedInRangeParams{IssuanceID: in.IssuanceID,
		FromSeq: int32(in.FromSeq), ToSeq: int32(in.ToSeq)})
	if err != nil {
		return fmt.Errorf("load batch: %w", err)
	}
	if len(rows) == 0 {
		return nil // anchored by an earlier attempt
	}
	params := make([]db.SetAssertionAnchorParams, len(rows))
	for i, r := range rows {
		params[i].ID = r.ID
	}
	if a.Anchor != nil && rows[0].Mode == "live" {
		digests := make([][32]byte, len(rows))
		for i, r := range rows {
			copy(digests[i][:], r.CredentialSha256)
		}
		key := fmt.Sprintf("batch/%s/%d-%d", in.IssuanceID, in.FromSeq, in.ToSeq)
		res, err := a.Anchor.AnchorBatch(ctx, key, digests)
		if err != nil {
			return err
		}
		block, chainID := int64(res.BlockNumber), int64(res.ChainID)
		for i := range params {
			proof, err := json.Marshal(res.Proofs[i])
			if err != nil {
				return persistErr("encode inclusion proof", err)
			}
			params[i].AnchorTxHash, params[i].AnchorBlock, params[i].AnchorChainID = &res.TxHash, &block, &chainID
			params[i].AnchorProof = proof
		}
	}
	err = a.DB.InTx(ctx, func(q *db.Queries) error {
		for _, p := range params {
			if _, err := q.SetAssertionAnchor(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return persistErr("record batch anchor", err)
	}
	return nil
}
