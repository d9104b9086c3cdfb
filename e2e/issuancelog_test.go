package e2e

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/badged/badged/internal/issuancelog"
)

// requireLogIntact checks an organization's issuance log as stored: entries 0..n-1 without a gap, each live
// credential of want exactly once, the stored hashes exactly those of the entries, every checkpoint's root the
// tree hash of the entries before it (so no checkpoint forks from the entries), and the head the last checkpoint.
func requireLogIntact(t testing.TB, s *stack, org uuid.UUID, want []uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	rows, err := s.DB.Pool.Query(ctx, "SELECT idx, credential_id, entry FROM issuance_log_entries WHERE org_id = $1 ORDER BY idx", org)
	require.NoError(t, err)
	mem := &issuancelog.MemoryHashes{}
	seen := map[string]bool{}
	var n int64
	for rows.Next() {
		var idx int64
		var id string
		var entry []byte
		require.NoError(t, rows.Scan(&idx, &id, &entry))
		require.Equal(t, n, idx, "no gap in the log")
		require.False(t, seen[id], "%s logged twice", id)
		seen[id] = true
		require.NoError(t, mem.Add(entry))
		n++
	}
	require.NoError(t, rows.Err())
	for _, a := range want {
		require.True(t, seen[s.BaseURL+"/credentials/"+a.String()], "credential %s in the log", a)
	}
	require.Equal(t, int64(len(*mem)), int64(s.count(t, "SELECT count(*) FROM issuance_log_hashes WHERE org_id = $1", org)))
	require.Equal(t, tlog.StoredHashCount(n), int64(len(*mem)))

	cps, err := s.DB.Pool.Query(ctx, "SELECT tree_size, root_hash FROM issuance_log_checkpoints WHERE org_id = $1 ORDER BY tree_size", org)
	require.NoError(t, err)
	var last int64
	for cps.Next() {
		var size int64
		var root []byte
		require.NoError(t, cps.Scan(&size, &root))
		want, err := tlog.TreeHash(size, mem)
		require.NoError(t, err)
		require.Equal(t, want[:], root, "checkpoint of size %d", size)
		last = size
	}
	require.NoError(t, cps.Err())
	require.Equal(t, n, last, "the last checkpoint covers every entry")
	var head int64
	require.NoError(t, s.DB.Pool.QueryRow(ctx, "SELECT tree_size FROM issuance_logs WHERE org_id = $1", org).Scan(&head))
	require.Equal(t, n, head)
}
