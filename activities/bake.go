package activities

import (
	"context"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/baking"
	"github.com/badged/badged/internal/issuer"
)

// storeWorkers bounds the concurrent writes of one chunk to the object store.
const storeWorkers = 8

// BakeBadges embeds each signed credential in the badge image (PNG iTXt or SVG element; JPEG becomes PNG) and
// stores the result under a key derived from the assertion id, which openbadgeImageUrl serves.
func (a *Activities) BakeBadges(ctx context.Context, in StepBatch) (StepResult, error) {
	return a.runStep(ctx, "bake", in, a.onChunk(StepAnchored, a.bakeBadges))
}

func (a *Activities) bakeBadges(ctx context.Context, todo chunk, failed failures) (failures, error) {
	keys, types := make([]string, len(todo)), make([]string, len(todo))
	errs := forEach(ctx, len(todo), storeWorkers, func(ctx context.Context, i int) error {
		as := todo[i].Assertion
		img, err := a.badgeImage(ctx, todo[i].BadgeImageID)
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
		keys[i], types[i] = key, contentType
		return nil
	})
	ok := todo.succeeded(errs, failed)
	if len(ok) == 0 {
		return failed, nil
	}
	params := db.SetAssertionsBakedParams{}
	for _, i := range ok {
		params.Ids = append(params.Ids, todo[i].Assertion.ID)
		params.Keys = append(params.Keys, keys[i])
		params.ContentTypes = append(params.ContentTypes, types[i])
	}
	if _, err := a.DB.SetAssertionsBaked(ctx, params); err != nil {
		return nil, persistErr("record baked images", err)
	}
	return failed, nil
}
