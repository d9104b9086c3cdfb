// Package expiry computes when an assertion expires under a badge's relative policy.
//
// It imports nothing of the module.
package expiry

import "time"

// Relative returns the expiry of a credential issued at issuedAt under a policy of months: the issue date as a
// calendar date in loc (Asia/Seoul for the service), plus months, at 00:00 in loc. A day past the end of the target
// month clamps to its last day (Jan 31 + 1 month = Feb 28 or 29), unlike time.AddDate, which would spill into March.
func Relative(issuedAt time.Time, months int, loc *time.Location) time.Time {
	local := issuedAt.In(loc)
	total := int(local.Month()) - 1 + months
	year := local.Year() + total/12
	month := time.Month(total%12 + 1)
	day := local.Day()
	if last := daysIn(year, month); day > last {
		day = last
	}
	return time.Date(year, month, day, 0, 0, 0, 0, loc)
}

func daysIn(year int, month time.Month) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// TestValidity bounds the validity of a test-mode credential: it expires at most this long after it was requested,
// so a test credential that nobody revokes stops being valid on its own.
const TestValidity = 30 * 24 * time.Hour

// Test returns the expiry of a test-mode credential requested at now, whose badge policy gives expiredAt (nil: no
// expiry): the sooner of that and now + TestValidity, to the second. It counts from the request, not from issuedAt,
// so a backdated test issuance is still valid for a while, and never for longer.
func Test(expiredAt *time.Time, now time.Time) *time.Time {
	limit := now.Add(TestValidity).Truncate(time.Second)
	if expiredAt != nil && expiredAt.Before(limit) {
		return expiredAt
	}
	return &limit
}
