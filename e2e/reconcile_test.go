package e2e

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/temporal"
)

// diesAfterCommit is an IssuanceStarter whose process dies between the database commit and the workflow start:
// the issuance is committed as PROCESSING and its workflow never starts.
type diesAfterCommit struct{}

func (diesAfterCommit) StartIssuance(context.Context, db.Issuance) error {
	return errors.New("process killed before the workflow start")
}

// TestReconciler_StartsOrphanedIssuance: an issuance committed without its workflow, whose client never retries,
// is completed by the reconciler alone; a second pass, and a pass over issuances whose workflows exist, start
// nothing.
func TestReconciler_StartsOrphanedIssuance(t *testing.T) {
	s := newStack(t, stackOptions{starter: diesAfterCommit{}})
	tn := s.mustTenant(t, 100)
	res := s.postIssuance(t, "v3", tn.Key, tn.Badge, "orphan-"+uuid.NewString(), issuanceBody(t, tn.Program, emailRecipients("orphan", 5), ""))
	require.Equal(t, 500, res.Status, "the start failed after the commit: %s", res.Raw)
	var id uuid.UUID
	require.NoError(t, s.DB.Pool.QueryRow(context.Background(),
		"SELECT id FROM issuances WHERE org_id = $1 AND processing_status = 'PROCESSING'", tn.Org.ID).Scan(&id))
	iss, err := s.DB.GetIssuanceAnyOrg(context.Background(), id)
	require.NoError(t, err)
	starter := temporal.Starter{Client: s.Client}
	exists, err := starter.WorkflowExists(context.Background(), iss)
	require.NoError(t, err)
	require.False(t, exists, "no workflow was started")

	r := temporal.Reconciler{DB: s.DB, Starter: starter, Log: slog.New(slog.NewTextHandler(t.Output(), nil)), Grace: time.Hour}
	started, err := r.Once(context.Background())
	require.NoError(t, err)
	require.Empty(t, started, "an issuance younger than the grace is left to its request")

	r.Grace = 0
	started, err = r.Once(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{id.String()}, started)
	require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id.String(), issueTimeout)["processingStatus"])
	require.Equal(t, 1, s.countWorkflows(t, id.String()))
	require.Len(t, messagesByID(t, s.SMTP.Messages()), 5, "one mail per recipient")

	started, err = r.Once(context.Background())
	require.NoError(t, err)
	require.Empty(t, started, "the issuance finished: nothing to start")
}

// TestReconciler_ReachesLostBehindLive: the check for workflows Temporal lost goes on where the last pass stopped,
// so with one issuance a pass, the second lost issuance is restarted by the second pass although the first is
// PROCESSING again (running) and older.
func TestReconciler_ReachesLostBehindLive(t *testing.T) {
	ctx := context.Background()
	s := newStack(t, stackOptions{starter: diesAfterCommit{}})
	tn := s.mustTenant(t, 100)
	var ids []string
	for i := range 2 {
		res := s.postIssuance(t, "v3", tn.Key, tn.Badge, "lost-"+uuid.NewString(),
			issuanceBody(t, tn.Program, emailRecipients(fmt.Sprintf("lost%d", i), 2), ""))
		require.Equal(t, 500, res.Status, "the start failed after the commit: %s", res.Raw)
	}
	// Recorded as started, as if Temporal had run them and then lost its data.
	rows, err := s.DB.Pool.Query(ctx, `UPDATE issuances SET workflow_started_at = now()
		WHERE org_id = $1 AND processing_status = 'PROCESSING' RETURNING id`, tn.Org.ID)
	require.NoError(t, err)
	for rows.Next() {
		var id uuid.UUID
		require.NoError(t, rows.Scan(&id))
		ids = append(ids, id.String())
	}
	require.NoError(t, rows.Err())
	require.Len(t, ids, 2)

	r := temporal.Reconciler{DB: s.DB, Starter: temporal.Starter{Client: s.Client},
		Log: slog.New(slog.NewTextHandler(t.Output(), nil)), Batch: 1}
	first, err := r.Once(ctx)
	require.NoError(t, err)
	require.Len(t, first, 1)
	second, err := r.Once(ctx)
	require.NoError(t, err)
	require.Len(t, second, 1, "the second pass looks past the first, running again")
	require.ElementsMatch(t, ids, append(first, second...))
	for _, id := range ids {
		require.Equal(t, "COMPLETED", s.waitIssuance(t, "v3", tn.Key, id, issueTimeout)["processingStatus"])
		require.Equal(t, 1, s.countWorkflows(t, id))
	}
}
