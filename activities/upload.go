package activities

import (
	"context"
	"fmt"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
)

// UploadArtifacts publishes the signed credential: it stores it under its public key, which credentialUrl serves.
// It runs after the credential is anchored and baked, so nothing is public before its anchor exists; the baked
// image was stored by the bake step. (The PDF certificate is rendered on its first download.)
func (a *Activities) UploadArtifacts(ctx context.Context, in StepInput) error {
	return a.fail(ctx, "upload", in, a.uploadArtifacts(ctx, in))
}

func (a *Activities) uploadArtifacts(ctx context.Context, in StepInput) error {
	as, err := a.DB.GetAssertionByID(ctx, in.AssertionID)
	if err != nil {
		return fmt.Errorf("load assertion: %w", err)
	}
	if as.Step != StepBaked {
		return nil
	}
	key := issuer.CredentialKey(as.ID.String())
	if _, err := a.Blob.PutIfAbsent(ctx, key, as.CredentialJson, "application/vc+ld+json"); err != nil {
		return err
	}
	if _, err := a.DB.SetAssertionPublished(ctx, db.SetAssertionPublishedParams{ID: as.ID, CredentialKey: &key}); err != nil {
		return persistErr("record published credential", err)
	}
	return nil
}
