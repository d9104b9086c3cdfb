package activities

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/activity"
)

// expireBatch bounds one UPDATE of the expiry job so that it never holds many row locks at once.
const expireBatch = 1000

// ExpireAssertions moves every ISSUED/RECEIVED assertion past its expiredAt to EXPIRED and returns how many it
// moved. Reads are right before it runs (they compute the effective state); this keeps the stored state and the
// counters in line. Each batch records the assertion.expired webhook events of its assertions in the same
// statement (db/queries/pipeline.sql), so an event exists exactly for each committed expiry.
func (a *Activities) ExpireAssertions(ctx context.Context) (int64, error) {
	var total int64
	for {
		n, err := a.DB.ExpireAssertions(ctx, expireBatch)
		if err != nil {
			return total, fmt.Errorf("expire assertions: %w", err)
		}
		total += n
		if n < expireBatch {
			break
		}
		activity.RecordHeartbeat(ctx, total)
	}
	if total > 0 {
		a.Log.InfoContext(ctx, "assertions expired", "count", total)
	}
	return total, nil
}
