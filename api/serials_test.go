package api_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/badged/badged/db"
	"github.com/badged/badged/internal/recipient"
	"github.com/badged/badged/internal/serial"
)

// serialNumberer is the numbering of org's serials, with the key stored for it.
func serialNumberer(tb testing.TB, d *db.DB, org uuid.UUID) *serial.Numberer {
	tb.Helper()
	key, err := d.GetSerialKey(context.Background(), org)
	require.NoError(tb, err)
	n, err := serial.New(org, key)
	require.NoError(tb, err)
	return n
}

// TestSerials_UniqueUnderConcurrency: issuances, a large staged one among them, and a reissue, all at once on one
// organization, give every assertion its own serial in the keyed form (internal/serial); read back with the
// organization's key, the serials are exactly the counters 1..N, none lost or twice; and they do not follow the
// order they were issued in, so a serial does not tell how many came before it.
func TestSerials_UniqueUnderConcurrency(t *testing.T) {
	f := newIssFixture(t)
	setCredits(t, f.d, f.org, 1_000_000)
	first := f.mustIssue(t, "v3", "{badge}", "manager", "serial-first", issuanceBody("{program}", rcpt("First", "first@example.com")))
	var original string
	require.NoError(t, f.d.Pool.QueryRow(context.Background(), "SELECT id FROM assertions WHERE issuance_id = $1",
		jstr(t, first, "id")).Scan(&original))
	f.setState(t, original, "RECEIVED") // as the pipeline leaves it: it can be reissued

	const writers, each, recipients = 6, 4, 25
	staged := recipient.StageAbove + 1
	var wg sync.WaitGroup
	errs := make(chan string, writers*each+2)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				var rs []string
				for j := range recipients {
					rs = append(rs, rcpt(fmt.Sprintf("W%d-%d-%d", w, i, j), fmt.Sprintf("w%d.%d.%d@example.com", w, i, j)))
				}
				r := f.postIssuance(t, "v3", "{badge}", "manager", fmt.Sprintf("serial-%d-%d", w, i), issuanceBody("{program}", rs...))
				if r.Status != http.StatusOK {
					errs <- string(r.Raw)
				}
			}
		})
	}
	var large string
	wg.Go(func() {
		r := f.postIssuanceRaw(t, "serial-staged", "", []byte(f.expand(manyRecipients("{program}", staged))))
		if r.Status != http.StatusOK {
			errs <- string(r.Raw)
			return
		}
		large = jstr(t, r.Body["data"].(map[string]any), "id")
	})
	wg.Go(func() {
		if r := f.postReissue(t, "v3", original, "manager", "serial-reissue", ""); r.Status != http.StatusOK {
			errs <- string(r.Raw)
		}
	})
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	requireMaterialized(t, f, large, staged)

	total := 1 + writers*each*recipients + staged + 1
	rows, err := f.d.Pool.Query(context.Background(), "SELECT serial_number FROM assertions WHERE org_id = $1 ORDER BY created_at, seq", f.org.ID)
	require.NoError(t, err)
	defer rows.Close()
	numbers := serialNumberer(t, f.d, f.org.ID)
	form := regexp.MustCompile(`^` + f.org.ID.String()[:8] + `-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$`)
	counters := map[int64]string{}
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		require.Regexp(t, form, s)
		c, ok := numbers.Counter(s)
		require.True(t, ok, s)
		require.Empty(t, counters[c], "counter %d twice: %s and %s", c, counters[c], s)
		counters[c] = s
	}
	require.NoError(t, rows.Err())
	require.Len(t, counters, total)
	for c := int64(1); c <= int64(total); c++ {
		require.NotEmpty(t, counters[c], "counter %d", c)
	}

	// Sorted, the serials of counters 1..N are in no particular order of their counters.
	sorted := make([]string, 0, total)
	for c := int64(1); c <= int64(total); c++ {
		sorted = append(sorted, counters[c])
	}
	ascending := 0
	for i := 1; i < len(sorted); i++ {
		if sorted[i] > sorted[i-1] {
			ascending++
		}
	}
	require.InDelta(t, 0.5, float64(ascending)/float64(len(sorted)-1), 0.05, "consecutive counters give unordered serials")
}
