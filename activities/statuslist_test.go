package activities

import (
	"context"
	"sort"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/issuer"
)

// allocateConcurrently allocates status entries for n fresh assertions of one organization from 8 goroutines
// (chunks of 25, as concurrent issuances' sign steps would) and returns the entries, checked for uniqueness.
func allocateConcurrently(t *testing.T, f *fixture, svc *issuer.Service, n int) map[uuid.UUID]issuer.StatusEntry {
	t.Helper()
	rs := make([]recipient, n)
	_, ids := f.mustIssuance(t, "live", 3, rs...)
	as := make([]db.Assertion, n)
	for i, id := range ids {
		as[i] = f.mustAssertion(t, id)
	}
	const workers, chunk = 8, 25
	jobs := make(chan []db.Assertion)
	var mu sync.Mutex
	all := map[uuid.UUID]issuer.StatusEntry{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for part := range jobs {
				got, err := svc.AllocateStatuses(context.Background(), part)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for id, e := range got {
					all[id] = e
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i += chunk {
		jobs <- as[i:min(i+chunk, n)]
	}
	close(jobs)
	wg.Wait()
	close(errs)
	require.NoError(t, <-errs)
	require.Len(t, all, n)
	seen := map[issuer.StatusEntry]bool{}
	for _, e := range all {
		require.False(t, seen[e], "entry %v given twice", e)
		seen[e] = true
	}
	return all
}

// perList counts the entries of each list and checks that every list's entries are 0..count-1 (no holes).
func perList(t *testing.T, all map[uuid.UUID]issuer.StatusEntry) map[uuid.UUID]int {
	t.Helper()
	idx := map[uuid.UUID][]int{}
	for _, e := range all {
		idx[e.List] = append(idx[e.List], e.Index)
	}
	counts := map[uuid.UUID]int{}
	for l, xs := range idx {
		sort.Ints(xs)
		for i, x := range xs {
			require.Equal(t, i, x, "list %s has a hole", l)
		}
		counts[l] = len(xs)
	}
	return counts
}

func TestAllocateStatuses_ConcurrentFillOneList(t *testing.T) {
	f := mustFixture(t)
	svc := issuer.New(f.DB, nil, "http://badges.test")
	counts := perList(t, allocateConcurrently(t, f, svc, 200))
	require.Len(t, counts, 1, "200 entries of one organization in one list: %v", counts)
	var lists int
	require.NoError(t, f.DB.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM status_lists WHERE org_id = $1`, f.OrgID).Scan(&lists))
	require.Equal(t, 1, lists, "no second list was opened")
}

func TestAllocateStatuses_TinyListsFillInOrder(t *testing.T) {
	f := mustFixture(t)
	svc := issuer.New(f.DB, nil, "http://badges.test")
	svc.StatusListSize = 16
	counts := perList(t, allocateConcurrently(t, f, svc, 200))
	// 200 = 12 full lists of 16 + one of 8: every list but the last opened is full.
	rows, err := f.DB.Pool.Query(context.Background(),
		`SELECT id, next_index, size FROM status_lists WHERE org_id = $1 ORDER BY created_at, next_index DESC`, f.OrgID)
	require.NoError(t, err)
	defer rows.Close()
	var open int
	var total int
	for rows.Next() {
		var id uuid.UUID
		var next, size int32
		require.NoError(t, rows.Scan(&id, &next, &size))
		require.EqualValues(t, 16, size)
		require.Equal(t, int(next), counts[id], "list %s: stored next index against entries handed out", id)
		if next < size {
			open++
		}
		total += int(next)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, 200, total)
	require.Len(t, counts, 13, "200 entries in lists of 16: %v", counts)
	require.Equal(t, 1, open, "only the last list may be partly filled")
}
