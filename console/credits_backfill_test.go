package console_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCreditLedger_Backfill: migration 0037 run over a database that had the same history without a ledger
// rebuilds it from issuances, re-drive runs, failed live recipients and the audit trail: the grant, the debit, the
// re-drive and the refunds come back with their amounts, what it cannot derive (apitest's organizations are made
// with 100 credits and no audit row) is one 'backfill' row, every organization's ledger sums to its balance, and
// the reconstructed rows do not pretend to know the balance after them.
func TestCreditLedger_Backfill(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	iss := creditScenario(t, f)
	migration, err := os.ReadFile("../db/migrations/0037_credit_ledger.sql")
	require.NoError(t, err)
	// Back to the schema before 0037, then 0037 again, in one transaction.
	tx, err := f.DB.Pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, `DROP TABLE credit_ledger, issuance_outcome_counts;
		DROP FUNCTION credit_ledger_append_only(), issuance_outcome_counts_insert(), issuance_outcome_counts_update(),
			issuance_outcome_counts_delete() CASCADE`)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, string(migration))
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))

	kinds := map[string]int64{}
	rows, err := f.DB.Pool.Query(ctx, `SELECT kind, sum(delta), count(*) FILTER (WHERE balance_after IS NOT NULL),
		count(*) FILTER (WHERE issuance_id = $2) FROM credit_ledger WHERE org_id = $1 GROUP BY kind`, f.Org.ID, iss)
	require.NoError(t, err)
	for rows.Next() {
		var kind string
		var sum, known, ofIssuance int64
		require.NoError(t, rows.Scan(&kind, &sum, &known, &ofIssuance))
		kinds[kind] = sum
		if kind == "backfill" {
			require.Equal(t, int64(1), known, "the backfill row holds the balance at the migration")
		} else {
			require.Zero(t, known, "%s: reconstructed rows leave balance_after unknown", kind)
		}
		if kind != "grant" && kind != "backfill" {
			require.Equal(t, int64(1), ofIssuance, "%s names its issuance", kind)
		}
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]int64{"backfill": 100, "grant": 50, "issuance": -4, "refund": 3, "redrive": -2}, kinds)

	var off int
	require.NoError(t, f.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM organizations o
		WHERE o.credits <> (SELECT COALESCE(sum(delta), 0) FROM credit_ledger l WHERE l.org_id = o.id)`).Scan(&off))
	require.Zero(t, off, "every organization's ledger sums to its balance")

	_, err = f.DB.Pool.Exec(ctx, "DELETE FROM credit_ledger WHERE org_id = $1", f.Org.ID)
	require.ErrorContains(t, err, "append-only")
}

// TestConsole_OutcomeCounters: the counters the issuance page reads (issuance_outcome_counts, kept by triggers on
// assertions) equal a count of the assertions themselves after inserts, pipeline updates, outcomes, a failed run,
// a re-drive's reset and a hand-made delete, for every issuance.
func TestConsole_OutcomeCounters(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	iss := creditScenario(t, f)
	_, err := f.DB.Pool.Exec(ctx, "UPDATE assertions SET step = 'SIGNED' WHERE issuance_id = $1", iss) // no outcome moves
	require.NoError(t, err)
	_, err = f.DB.Pool.Exec(ctx, "DELETE FROM assertions WHERE issuance_id = $1 AND seq = 0", iss)
	require.NoError(t, err)
	var off, issuances int
	require.NoError(t, f.DB.Pool.QueryRow(ctx, `WITH live AS (
			SELECT issuance_id, state, coalesce(error_code, '') AS error_code, count(*) AS n FROM assertions GROUP BY 1, 2, 3),
		kept AS (SELECT issuance_id, state, error_code, n FROM issuance_outcome_counts WHERE n <> 0)
		SELECT (SELECT count(*) FROM ((TABLE live EXCEPT TABLE kept) UNION ALL (TABLE kept EXCEPT TABLE live)) d),
		       (SELECT count(DISTINCT issuance_id) FROM kept)`).Scan(&off, &issuances))
	require.Zero(t, off, "counters and assertions disagree")
	require.GreaterOrEqual(t, issuances, 2)
	page := f.get(t, viewer, "/console/issuances/"+iss.String())
	for _, want := range []string{"FAILED</a>: 1", "PROCESSING</a>: 2", "MISSING_INFO</a>: 1"} {
		require.Contains(t, page.body, want)
	}
}
