package api_test

import (
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAssertions_RangeTotalAtHourEdges checks the total of startAt/endAt lists, which adds whole UTC hours from the
// hour counters to exact counts of the partial hours at the edges, against the listed rows themselves, with
// assertions on, just before and just after hour boundaries and ranges that start or end on them.
func TestAssertions_RangeTotalAtHourEdges(t *testing.T) {
	f := &listFixture{issFixture: newIssFixture(t)}
	at := func(h, m, s, us int) time.Time { return time.Date(2025, 1, 7, h, m, s, us*1000, time.UTC) }
	created := []time.Time{
		at(8, 59, 59, 999999), at(9, 0, 0, 0), at(9, 0, 0, 1), at(9, 30, 0, 0), at(9, 59, 59, 999999),
		at(10, 0, 0, 0), at(11, 15, 0, 0), at(12, 0, 0, 0), at(12, 0, 0, 0), at(13, 59, 59, 999999),
	}
	for i, c := range created {
		f.clock.Set(c)
		f.mustIssue(t, "v3", "{badge}", "manager", "edge-"+strconv.Itoa(i),
			issuanceBody(f.vars["{program}"], rcpt("r"+strconv.Itoa(i), "r"+strconv.Itoa(i)+"@example.com")))
	}
	f.clock.Set(issNow)
	q := func(v time.Time) string { return url.QueryEscape(v.Format(time.RFC3339Nano)) }
	inRange := func(from, to *time.Time) int {
		n := 0
		for _, c := range created {
			if (from == nil || !c.Before(*from)) && (to == nil || !c.After(*to)) {
				n++
			}
		}
		return n
	}
	ranges := []struct{ from, to *time.Time }{
		{ptrTime(at(9, 0, 0, 0)), ptrTime(at(10, 0, 0, 0))},       // both on boundaries, end inclusive
		{ptrTime(at(9, 0, 0, 0)), ptrTime(at(9, 59, 59, 999999))}, // exactly one whole hour
		{ptrTime(at(9, 0, 0, 1)), ptrTime(at(12, 0, 0, 0))},       // partial first hour
		{ptrTime(at(8, 59, 59, 999999)), ptrTime(at(13, 59, 59, 999998))},
		{ptrTime(at(9, 30, 0, 0)), ptrTime(at(9, 45, 0, 0))}, // no whole hour: counted exactly
		{ptrTime(at(9, 59, 59, 999999)), ptrTime(at(10, 0, 0, 0))},
		{ptrTime(at(9, 0, 0, 1)), nil},
		{nil, ptrTime(at(11, 59, 59, 999999))},
		{ptrTime(at(0, 0, 0, 0)), ptrTime(at(23, 59, 59, 0))},
	}
	for _, r := range ranges {
		query := "size=100"
		if r.from != nil {
			query += "&startAt=" + q(*r.from)
		}
		if r.to != nil {
			query += "&endAt=" + q(*r.to)
		}
		names, p := f.list(t, "v3", "viewer", query)
		want := inRange(r.from, r.to)
		require.Len(t, names, want, query)
		require.Equal(t, float64(want), p["totalElement"], query)
	}
	// Offsets other than whole hours (+05:30) name the same instants; the counters' hours are UTC.
	india := time.FixedZone("IST", 5*3600+1800)
	from, to := at(9, 0, 0, 1).In(india), at(12, 0, 0, 0).In(india)
	_, p := f.list(t, "v3", "viewer", "size=100&startAt="+q(from)+"&endAt="+q(to))
	require.Equal(t, float64(inRange(&from, &to)), p["totalElement"])
}

func ptrTime(t time.Time) *time.Time { return &t }
