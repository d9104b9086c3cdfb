package activities

import (
	"context"
	"fmt"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/baking"
	"github.com/badged/badged/internal/issuer"
)

// BakeBadge embeds the signed credential in the badge image (PNG iTXt or SVG element; JPEG becomes PNG) and
// stores the result, which openbadgeImageUrl serves.
func (a *Activities) BakeBadge(ctx context.Context, in StepInput) error {
	return a.fail(ctx, "bake", in, a.bakeBadge(ctx, in))
}

func (a *Activities) bakeBadge(ctx context.Context, in StepInput) error {
	row, err := a.DB.GetPipelineAssertion(ctx, in.AssertionID)
	if err != nil {
		return fmt.Errorf("load assertion: %w", err)
	}
	as := row.Assertion
	if as.Step != StepAnchored {
		return nil
	}
	img, err := a.badgeImage(ctx, row.BadgeImageID)
	if err != nil {
		return err
	}
	baked, contentType, err := baking.Bake(img.Data, as.CredentialJson)
	if err != nil {
		return err
	}
	key := issuer.BakedKey(as.ID.String(), contentType)
	if _, err := a.Blob.PutIfAbsent(ctx, key, baked, contentType); err != nil {
		return err
	}
	if _, err := a.DB.SetAssertionBaked(ctx, db.SetAssertionBakedParams{ID: as.ID, BakedKey: &key, BakedContentType: &contentType}); err != nil {
		return persistErr("record baked image", err)
	}
	return nil
}
