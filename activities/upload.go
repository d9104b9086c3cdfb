package activities

import (
	"context"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
)

// PublishCredentials publishes each signed credential: it stores it under its public key, which credentialUrl
// serves. It runs after the credential is anchored and baked, so nothing is public before its anchor exists; the
// baked image was stored by the bake step. (The PDF certificate is rendered on its first download.)
func (a *Activities) PublishCredentials(ctx context.Context, in StepBatch) (StepResult, error) {
	return a.runStep(ctx, publishMetricStep, in, a.onChunk(StepBaked, a.publishCredentials))
}

// publishMetricStep is the publish step's step label in the badged_activity_* metrics: "upload", its old name,
// kept so that the series operators' dashboards have recorded for the step go on under the same label.
const publishMetricStep = "upload"

func (a *Activities) publishCredentials(ctx context.Context, todo chunk, failed failures) (failures, error) {
	errs := forEach(ctx, len(todo), storeWorkers, func(ctx context.Context, i int) error {
		as := todo[i].Assertion
		_, err := a.Blob.PutIfAbsent(ctx, issuer.CredentialKey(as.ID.String()), as.CredentialJson, "application/vc+ld+json")
		return err
	})
	ok := todo.succeeded(errs, failed)
	if len(ok) == 0 {
		return failed, nil
	}
	params := db.SetAssertionsPublishedParams{}
	for _, i := range ok {
		params.Ids = append(params.Ids, todo[i].Assertion.ID)
		params.Keys = append(params.Keys, issuer.CredentialKey(todo[i].Assertion.ID.String()))
	}
	if _, err := a.DB.SetAssertionsPublished(ctx, params); err != nil {
		return nil, persistErr("record published credentials", err)
	}
	return failed, nil
}
