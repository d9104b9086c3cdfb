package wire

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/badged/badged/activities"
	"github.com/badged/badged/console"
	"github.com/badged/badged/temporal"
)

// ConsoleRedrive is the console's re-drive (api.Deps.ConsoleRedrive) on r, the path `badged admin issuance
// redrive` takes. Its answer is the audit trail's summary of the run; a refusal (nothing retryable, a run going,
// credits short) comes back wrapping console.ErrRedriveRefused with its reason, which the console shows (409)
// instead of a failure.
func ConsoleRedrive(r temporal.Redriver) func(context.Context, uuid.UUID) (string, error) {
	return func(ctx context.Context, id uuid.UUID) (string, error) {
		res, err := r.Redrive(ctx, id)
		if rf, ok := activities.AsRedriveRefusal(err); ok {
			return "", fmt.Errorf("%w: %s", console.ErrRedriveRefused, rf.Reason)
		}
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("run %d, %d recipients", res.Run, len(res.AssertionIDs)), nil
	}
}
