package activities

import (
	"context"
	"fmt"

	"github.com/badged/badged/db"
)

// AnchorCredential puts the SHA-256 of the signed credential on chain. The anchor key is the assertion id, so a
// retry re-checks the same transaction (the chain package records it before broadcasting) instead of sending a
// second. Test-mode issuances and a service without a chain record the step as skipped.
func (a *Activities) AnchorCredential(ctx context.Context, in StepInput) error {
	return a.fail(ctx, "anchor", a.anchorCredential(ctx, in))
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
